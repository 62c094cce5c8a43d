import { Meter, ProviderError } from '@cm/providers';
import { BedrockSynthesis, type SourceText } from '../../packages/providers/src/web/synthesis';
import { conversePath, startWebReplay, type WebReplay } from '../helpers/web-replay';
import { given } from '../helpers/client';

/*
 * Every stop reason the Bedrock Runtime models list, each from a recorded Converse answer: a whole
 * answer is read, a cut one is asked once more for less, and the rest fail with a clear reason. The
 * tokens of every answer are recorded, whatever it held.
 */

const MODEL = 'us.anthropic.claude-3-5-haiku-20241022-v1:0';
let replay: WebReplay;
beforeAll(async () => {
  replay = await startWebReplay();
});
afterAll(() => replay.close());
beforeEach(() => {
  replay.requests.length = 0;
});

/** Five sources of 10,000 characters: more than one request reads (30,000), so a shorter one reads less. */
const SOURCES: SourceText[] = Array.from({ length: 5 }, (_, i) => ({
  id: `src-${i + 1}`,
  title: `Source ${i + 1}`,
  url: `https://example.com/${i + 1}`,
  text: `Running shoes last 300 to 500 miles. `.repeat(270),
}));

const bedrock = () =>
  new BedrockSynthesis({
    modelId: MODEL,
    region: 'us-east-1',
    endpoint: replay.http2Url,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
const synthesize = (meter: Meter) =>
  bedrock().synthesize({ query: 'how long do running shoes last', question: null }, SOURCES, meter);
const answers = (...fixtures: string[]) =>
  replay.answer(conversePath(MODEL), ...fixtures.map((name) => ({ fixture: `bedrock.converse.${name}` })));
const costs = (meter: Meter) => meter.calls.map((call) => call.cost_usd);

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ProviderError)) throw new Error(`expected a ProviderError, got ${String(error)}`);
  return error;
}

/** What a request asked for: the most facts and opinions its schema allows, and the length of its prompt. */
const asked = (index: number) => {
  const body = given(replay.requests[index], 'the replay.requests[index]').body;
  const schema = body.toolConfig.tools[0].toolSpec.inputSchema.json;
  return {
    facts: schema.properties.facts.maxItems,
    opinions: schema.properties.opinions.maxItems,
    promptChars: body.messages[0].content[0].text.length,
  };
};

describe('whole answers', () => {
  it.each([
    ['tool_use, with a text block before the tool call', 'text-before-tool', 0.0031064],
    ['end_turn with the tool call', 'end-turn-tool', 0.0030504],
    ['stop_sequence after the tool call', 'stop-sequence', 0.0030584],
  ])('reads the findings of %s, in one call', async (_reason, fixture, cost) => {
    answers(fixture);
    const meter = new Meter();
    const findings = await synthesize(meter);
    expect(findings.facts.map((f) => f.text)).toEqual([
      'Most running shoes should be replaced every 300 to 500 miles.',
      'The midsole foam wears out before the outsole shows obvious wear.',
    ]);
    expect(findings.opinions).toHaveLength(1);
    expect(replay.requests).toHaveLength(1);
    expect(costs(meter)).toEqual([Math.round(cost * 1e6) / 1e6]);
  });
});

describe('cut answers', () => {
  it('never reads a tool call cut at max_tokens: asks once more for half the findings from half the text, and reads that answer', async () => {
    answers('max-tokens', 'shorter-ok');
    const meter = new Meter();
    const findings = await synthesize(meter);
    // The whole second answer, not the half-written first (which had no opinions).
    expect(findings.opinions.map((o) => o.text)).toEqual(['Rotating two pairs lets the foam decompress between runs.']);
    expect(replay.requests).toHaveLength(2);
    expect(asked(0)).toMatchObject({ facts: 12, opinions: 8 });
    expect(asked(1)).toMatchObject({ facts: 6, opinions: 4 });
    expect(asked(1).promptChars).toBeLessThan(asked(0).promptChars / 2 + 1000);
    expect(given(replay.requests[1], 'the replay.requests[1]').body.system[0].text).toContain(
      'Give at most 6 facts and 4 opinions',
    );
    // Both answers are billed: 1873 in and 4096 out, then 1104 in and 236 out, at $0.80 and $4 per million.
    expect(costs(meter)).toEqual([0.017882, 0.001827]);
  });

  it('asks once more with half the sources’ text when they overflowed the context window', async () => {
    answers('context-window', 'shorter-ok');
    const meter = new Meter();
    const findings = await synthesize(meter);
    expect(findings.facts).toHaveLength(2);
    expect(replay.requests).toHaveLength(2);
    expect(costs(meter)).toEqual([0.006554, 0.001827]);
  });

  it('fails, not retryable, when the second answer is cut too, naming why; both calls are recorded', async () => {
    answers('max-tokens');
    const meter = new Meter();
    const error = await failure(synthesize(meter));
    expect(error).toMatchObject({ provider: 'bedrock', retryable: false });
    expect(error.message).toBe(
      'converse: the answer was cut at the output token limit (stop reason max_tokens), also when asked for half the findings from half the sources',
    );
    expect(replay.requests).toHaveLength(2);
    expect(costs(meter)).toEqual([0.017882, 0.017882]);
  });
});

describe('answers with no findings to read', () => {
  it.each([
    ['guardrail', 'a Bedrock guardrail stopped the answer (stop reason guardrail_intervened)', 0.001498],
    ['content-filtered', "the model's content filter stopped the answer (stop reason content_filtered)", 0.001546],
    ['malformed-output', 'the model gave a malformed answer (stop reason malformed_model_output)', 0.001726],
    [
      'malformed-tool-use',
      'the model gave a malformed record_findings call (stop reason malformed_tool_use)',
      0.001742,
    ],
    [
      'unknown-stop',
      'the model stopped for a reason this service does not know (stop reason paused_for_review)',
      0.00305,
    ],
    ['text-only', 'the model returned no findings (stop reason end_turn)', 0.001428],
  ])(
    'fails on %s at once, not retryable, with the reason, after recording the tokens billed',
    async (fixture, reason, cost) => {
      answers(fixture);
      const meter = new Meter();
      const error = await failure(synthesize(meter));
      expect(error).toMatchObject({ provider: 'bedrock', retryable: false, message: `converse: ${reason}` });
      expect(replay.requests).toHaveLength(1);
      expect(costs(meter)).toEqual([cost]);
    },
  );
});
