import { ApiError, BREAKER } from '@cm/contract';
import { forgetBreakers, ProviderBreakers } from '@cm/tools';
import { BreakerStore } from '@cm/store';
import { startTestStack, type TestStack } from '../helpers/local';

/* The providers' shared circuit breakers on the embedded DynamoDB, on a clock the test moves (no sleeps). */

let t: TestStack;
let breakers: BreakerStore;
beforeAll(async () => {
  t = await startTestStack();
  breakers = new BreakerStore(t.db, t.stack.tableName);
}, 60_000);
afterAll(() => t.stop());
beforeEach(() => forgetBreakers());

/** A gate as one function's container has it, on the test's clock; `opened` counts the openings it caused. */
function gateAt(clock: { now: number }) {
  const events = { opened: 0, refused: 0 };
  const gate = new ProviderBreakers(breakers, {
    now: () => clock.now,
    opened: () => events.opened++,
    refused: () => events.refused++,
  });
  return { gate, events };
}

/** The refusal `admit` answers, or null when the call may go. */
async function refusal(gate: ProviderBreakers, provider: string): Promise<ApiError | null> {
  try {
    await gate.admit(provider);
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

it('opens after its failures within the window, refuses at once with the cool-down left, and counts one opening', async () => {
  const clock = { now: 1_000_000 };
  const [a, b] = [gateAt(clock), gateAt(clock)];
  for (let i = 0; i < BREAKER.failures - 1; i++) {
    await a.gate.report('p-open', false);
    clock.now += 1_000;
  }
  expect(await refusal(b.gate, 'p-open')).toBeNull();
  await b.gate.report('p-open', false);
  expect(a.events.opened + b.events.opened).toBe(1);

  clock.now += BREAKER.cacheMs;
  const refused = await refusal(a.gate, 'p-open');
  expect(refused).toMatchObject({ status: 503, code: 'provider_unavailable', extra: { provider: 'p-open' } });
  expect(refused?.headers['retry-after']).toBe(String((BREAKER.coolDownMs - BREAKER.cacheMs) / 1000));
  expect(a.events.refused).toBe(1);
});

it('does not open on failures spread wider than its window', async () => {
  const clock = { now: 5_000_000 };
  const { gate, events } = gateAt(clock);
  for (let i = 0; i < BREAKER.failures * 2; i++) {
    await gate.report('p-spread', false);
    clock.now += BREAKER.windowMs / (BREAKER.failures - 1);
  }
  expect(events.opened).toBe(0);
  expect(await refusal(gate, 'p-spread')).toBeNull();
});

it('lets one probe through after the cool-down: its success closes the breaker for every function', async () => {
  const clock = { now: 10_000_000 };
  const [a, b] = [gateAt(clock), gateAt(clock)];
  for (let i = 0; i < BREAKER.failures; i++) await a.gate.report('p-close', false);
  expect(await refusal(b.gate, 'p-close')).not.toBeNull();

  clock.now += BREAKER.coolDownMs;
  // Half-open: the first caller probes; another, meanwhile, is refused.
  expect(await refusal(a.gate, 'p-close')).toBeNull();
  forgetBreakers();
  expect(await refusal(b.gate, 'p-close')).toMatchObject({ code: 'provider_unavailable' });

  await a.gate.report('p-close', true);
  clock.now += BREAKER.cacheMs;
  expect(await refusal(b.gate, 'p-close')).toBeNull();
  expect(await breakers.read('p-close')).toMatchObject({ openUntil: null, probeUntil: null, failures: 0 });
});

it('opens again when the probe fails, for another cool-down', async () => {
  const clock = { now: 20_000_000 };
  const { gate, events } = gateAt(clock);
  for (let i = 0; i < BREAKER.failures; i++) await gate.report('p-reopen', false);
  clock.now += BREAKER.coolDownMs;
  expect(await refusal(gate, 'p-reopen')).toBeNull();
  await gate.report('p-reopen', false);
  expect(events.opened).toBe(2);
  expect(await refusal(gate, 'p-reopen')).toMatchObject({ code: 'provider_unavailable' });
  expect((await breakers.read('p-reopen')).openUntil).toBe(clock.now + BREAKER.coolDownMs);
});

it('costs a closed breaker one read per few seconds per function, and a success no write', async () => {
  const clock = { now: 30_000_000 };
  const { gate } = gateAt(clock);
  const requests = () => t.stack.dynamo.requests();
  const before = requests();
  for (let i = 0; i < 10; i++) {
    await gate.admit('p-cheap');
    await gate.report('p-cheap', true);
  }
  expect(requests() - before).toBe(1);
});
