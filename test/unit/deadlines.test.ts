import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { lambdaContext } from '@cm/local';
import { Meter } from '@cm/providers';
import { json } from '../../packages/runtime/src/http/replies';
import { routeHandler } from '../../packages/runtime/src/http/router';
import { apiEvent } from '../helpers/lambda-events';

/* Deadlines that fire: an attempt's time limit survives garbage collection, and one request's timeout is its own. */

setFlagsFromString('--expose-gc');
const collectGarbage: () => void = runInNewContext('gc');

it('ends a provider attempt at its time limit even when the collector runs while it waits', async () => {
  const run = new AbortController();
  const meter = new Meter({ signal: run.signal });
  const ended: string[] = [];
  for (let i = 0; i < 10; i++) {
    // As fetch does: it listens on the attempt's signal, and nothing else has the timer's signal.
    meter.attemptLimit(50).signal.addEventListener('abort', (event) => {
      const reason: unknown = event.target instanceof AbortSignal ? event.target.reason : null;
      ended.push(reason instanceof DOMException ? reason.name : String(reason));
    });
  }
  for (let i = 0; i < 5; i++) {
    collectGarbage();
    await sleep(20);
  }
  await sleep(100);
  expect(ended).toEqual(Array(10).fill('TimeoutError'));
});

it('ends an attempt when its run is given up, and a cleared limit ends nothing', async () => {
  const run = new AbortController();
  const meter = new Meter({ signal: run.signal });
  const cleared = meter.attemptLimit(30);
  cleared.clear();
  const attempt = meter.attemptLimit(60_000);
  run.abort(new Error('deadline'));
  expect(attempt.signal.aborted).toBe(true);
  await sleep(60);
  expect(cleared.signal.aborted).toBe(false);
  attempt.clear();
});

describe('a route handler', () => {
  const table = process.env.TABLE_NAME;
  beforeAll(() => {
    process.env.TABLE_NAME = 'deadlines';
  });
  afterAll(() => {
    if (table === undefined) delete process.env.TABLE_NAME;
    else process.env.TABLE_NAME = table;
  });

  it("keeps each request's deadline its own: one request timing out does not end another's", async () => {
    const seen: boolean[] = [];
    const handle = routeHandler(
      {
        'GET /health': async (request) => {
          if (request.event.headers['x-slow'] === 'forever') await new Promise(() => undefined);
          await sleep(800);
          seen.push(request.deadline.aborted);
          return json(200, {});
        },
      },
      new WeakMap(),
    );
    const stuck = handle(
      { ...apiEvent('GET', '/health'), headers: { 'x-slow': 'forever' } },
      lambdaContext('health', 900),
    );
    const patient = handle(apiEvent('GET', '/health'), lambdaContext('health', 10_000));
    expect((await stuck).statusCode).toBe(503);
    expect((await patient).statusCode).toBe(200);
    expect(seen).toEqual([false]);
  });

  it('times a deadline asked for late from the request, not from when it was asked: its time may be up already', async () => {
    const started = Date.now();
    let aborted: boolean | undefined;
    const handle = routeHandler(
      {
        'GET /health': async (request) => {
          // Later than the deadline (the function's 10 s less the margins), as a long handler would ask.
          jest.spyOn(Date, 'now').mockReturnValue(started + 9_000);
          aborted = request.deadline.aborted;
          jest.restoreAllMocks();
          return json(200, {});
        },
      },
      new WeakMap(),
    );
    expect((await handle(apiEvent('GET', '/health'), lambdaContext('health', 10_000))).statusCode).toBe(200);
    expect(aborted).toBe(true);
  });
});
