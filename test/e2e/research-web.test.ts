import { roundUsd } from '@cm/contract';
import { siteClient, startTestStack, type TestStack } from '../helpers/local';
import { apiClient, given, variant } from '../helpers/client';
import { conversePath, startWebReplay, webFixture, type WebReplay } from '../helpers/web-replay';

/* The local stack with a Tavily key: research jobs call the real adapters, which reach only the replay servers. */

let t: TestStack;
let replay: WebReplay;
const MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';
const ENV = {
  TAVILY_API_KEY: 'tvly-dev-test',
  BEDROCK_MODEL_ID: MODEL,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
};

beforeAll(async () => {
  replay = await startWebReplay();
  t = await startTestStack({ env: { ...ENV, TAVILY_BASE_URL: replay.url, BEDROCK_ENDPOINT: replay.http2Url } });
}, 60_000);
afterAll(async () => {
  await t.stop();
  await replay.close();
});

describe('research on Tavily and Bedrock (recorded responses)', () => {
  it('answers a web research with findings citing the pages found, labelled and costed, and ledgers both providers', async () => {
    replay.answer('/search', { fixture: 'tavily.search.ok' });
    replay.answer(conversePath(MODEL), { fixture: 'bedrock.converse.ok' });
    const client = apiClient(t);
    const reply = await client.tool('research', { mode: 'web', seed: 'How long do running shoes last?' });
    expect(reply.status).toBe(200);
    // 1 Tavily credit at $0.008; Claude 3 Haiku: 1873 input and 412 output tokens at $0.25 and $1.25 per million.
    expect(reply.body).toMatchObject({
      status: 'succeeded',
      data_source: 'tavily+bedrock',
      cost_usd: 0.008983,
      cached: false,
    });
    const found = variant(reply.body, 'status', 'succeeded');
    expect(found.sources.map((s) => s.url)).toEqual(
      webFixture('tavily.search.ok').results.map((r: { url: string }) => r.url),
    );
    expect(found.facts[0]).toEqual({
      text: 'Most running shoes should be replaced every 300 to 500 miles.',
      source_ids: ['src-1', 'src-2'],
    });

    const usage = await client.route('GET /v1/usage');
    expect(usage.body.by_tool).toEqual(
      expect.arrayContaining([
        { tool: 'research', provider: 'tavily', calls: 1, cost_usd: 0.008 },
        { tool: 'research', provider: 'bedrock', calls: 1, cost_usd: 0.000983 },
      ]),
    );
  });

  it("charges a site its providers' bill, once and with nothing added; another site's identical research calls neither and pays $0", async () => {
    replay.answer('/search', { fixture: 'tavily.search.ok' });
    replay.answer(conversePath(MODEL), { fixture: 'bedrock.converse.ok' });
    // What Tavily and Bedrock bill, from their own answers: credits at $0.008, Claude 3 Haiku's tokens at $0.25 and $1.25 a million.
    const credits = webFixture('tavily.search.ok').usage.credits;
    const tokens = webFixture('bedrock.converse.ok').usage;
    const bill = roundUsd(credits * 0.008 + (tokens.inputTokens * 0.25 + tokens.outputTokens * 1.25) / 1e6);
    const a = await siteClient(t, 'Bill A');
    const b = await siteClient(t, 'Bill B');
    const seed = 'trail shoes that last a year';

    const paid = await a.client.tool('research', { mode: 'web', seed });
    expect(paid.body).toMatchObject({ status: 'succeeded', cost_usd: bill, cached: false });
    const { job_id: jobId, facts } = variant(paid.body, 'status', 'succeeded');
    const job = await a.client.route('GET /v1/jobs/{job_id}', { params: { job_id: given(jobId, 'the job id') } });
    expect(given(job.body.result, 'the job result').cost_usd).toBe(bill);
    expect((await a.client.route('GET /v1/usage')).body).toMatchObject({ calls: 2, cost_usd: bill });
    expect((await a.client.route('GET /v1/budget')).body.daily).toMatchObject({ spent_usd: bill, reserved_usd: 0 });

    const requests = replay.requests.length;
    const shared = await b.client.tool('research', { mode: 'web', seed });
    expect(shared.body).toMatchObject({
      cached: true,
      cost_usd: 0,
      data_source: 'tavily+bedrock',
      facts,
    });
    expect(replay.requests.length).toBe(requests);
    expect((await b.client.route('GET /v1/usage')).body).toMatchObject({ calls: 1, cost_usd: 0 });
    expect((await b.client.route('GET /v1/budget')).body.daily).toMatchObject({ spent_usd: 0, reserved_usd: 0 });
    // The first site's bill is what it was.
    expect((await a.client.route('GET /v1/budget')).body.daily).toMatchObject({ spent_usd: bill });
  });

  it('ends the job failed with provider_error on a Tavily key it refuses, and frees the place', async () => {
    replay.answer('/search', { fixture: 'tavily.401', status: 401 });
    const reply = await apiClient(t).tool('research', { mode: 'reddit', seed: 'budget trail shoes' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'failed',
      error: { code: 'provider_error', message: expect.stringContaining('HTTP 401') },
    });
    await t.stack.drain();
    expect(await t.store.researchSlots.state()).toEqual({ inflight: 0, leases: {}, groups: {} });
  });

  it('ends the job failed with provider_error when the model’s answer is cut twice, and bills both answers', async () => {
    replay.answer('/search', { fixture: 'tavily.search.ok' });
    replay.answer(conversePath(MODEL), { fixture: 'bedrock.converse.max-tokens' });
    const client = apiClient(t);
    const before = await client.route('GET /v1/usage');
    const bedrockSpent = (usage: typeof before) =>
      usage.body.by_tool.find((row) => row.tool === 'research' && row.provider === 'bedrock') ?? {
        calls: 0,
        cost_usd: 0,
      };
    const reply = await client.tool('research', { mode: 'web', seed: 'when to replace trail shoes' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'failed',
      error: {
        code: 'provider_error',
        message: expect.stringContaining(
          'cut at the output token limit (stop reason max_tokens), also when asked for half',
        ),
      },
    });
    const after = await client.route('GET /v1/usage');
    // Claude 3 Haiku: 1873 input and 4096 output tokens at $0.25 and $1.25 per million, twice.
    expect(bedrockSpent(after).calls - bedrockSpent(before).calls).toBe(2);
    expect(bedrockSpent(after).cost_usd - bedrockSpent(before).cost_usd).toBeCloseTo(2 * 0.005588, 6);
  });
});
