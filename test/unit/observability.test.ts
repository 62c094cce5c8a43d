import { lambdaContext } from '@cm/local';
import { captureOutput } from '../helpers/output';

/* One Observation per invocation: the logger tells the container's cold start, not its own first use. */

function freshObservability(env: Record<string, string | undefined>) {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  let module!: typeof import('../../packages/runtime/src/observability');
  jest.isolateModules(() => {
    module = require('../../packages/runtime/src/observability');
  });
  process.env = saved;
  return module;
}

describe('Observation', () => {
  it("calls only the first invocation of an on-demand container a cold start, also in a queue record's lines", () => {
    const { Observation } = freshObservability({
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      POWERTOOLS_LOG_LEVEL: 'INFO',
    });
    const output = captureOutput({ level: 'INFO' });
    try {
      for (let i = 0; i < 3; i++) {
        const observation = Observation.start(lambdaContext('relink-worker', 1000));
        observation.log.info('invocation', { i });
        observation.child({ message_id: `m${i}` }).log.info('record');
      }
    } finally {
      output.stop();
    }
    expect(output.logs('invocation').map((line) => line.cold_start)).toEqual([true, false, false]);
    expect(output.logs('record').map((line) => [line.message_id, line.cold_start])).toEqual([
      ['m0', true],
      ['m1', false],
      ['m2', false],
    ]);
    const requestIds = output.logs('invocation').map((line) => line.function_request_id);
    expect(new Set(requestIds).size).toBe(3);
    expect(output.logs('record').map((line) => line.function_request_id)).toEqual(requestIds);
  });

  it("never calls a provisioned container's invocation a cold start", () => {
    const { Observation } = freshObservability({
      AWS_LAMBDA_INITIALIZATION_TYPE: 'provisioned-concurrency',
      POWERTOOLS_LOG_LEVEL: 'INFO',
    });
    const output = captureOutput({ level: 'INFO' });
    try {
      Observation.start(lambdaContext('publish', 1000)).log.info('invocation');
    } finally {
      output.stop();
    }
    expect(output.logs('invocation').map((line) => line.cold_start)).toEqual([false]);
  });
});

describe('Observation, reused', () => {
  it("reuses an ended invocation's logger and metrics, without its keys and dimensions", () => {
    const { Observation } = freshObservability({ POWERTOOLS_LOG_LEVEL: 'INFO' });
    const output = captureOutput({ level: 'INFO', metrics: true });
    try {
      const first = Observation.start(lambdaContext('get-keywords', 1000));
      // Started while the first runs: a pair of its own.
      const running = Observation.start(lambdaContext('publish', 1000));
      first.keys({ site_id: 7 });
      first.dimension('tool', 'get_keywords');
      first.end();
      const second = Observation.start(lambdaContext('publish', 1000));
      expect(second.log).toBe(first.log);
      expect(running.log).not.toBe(first.log);
      second.log.info('second');
      second.metric('publishes');
      second.end();
      running.end();
    } finally {
      output.stop();
    }
    expect(output.logs('second')).toEqual([expect.not.objectContaining({ site_id: expect.anything() })]);
    expect(output.logs('second')[0]).toMatchObject({ function_name: 'publish' });
    expect(output.metric('publishes').map((m) => m.dimensions)).toEqual([['service']]);
  });
});

describe('scheduled', () => {
  it('logs a run that did something at info, and one that found nothing to do (every count 0) at debug only', async () => {
    const { scheduled } =
      require('../../packages/runtime/src/worker') as typeof import('../../packages/runtime/src/worker');
    let outcome = { expired: 0, freed: 0 };
    const handler = scheduled('swept', async () => outcome);
    const event = { source: 'aws.events' } as never;
    const info = captureOutput({ level: 'INFO' });
    try {
      await handler(event, lambdaContext('research-sweep', 1000));
      outcome = { expired: 1, freed: 0 };
      await handler(event, lambdaContext('research-sweep', 1000));
    } finally {
      info.stop();
    }
    expect(info.logs('swept').map((line) => [line.level, line.expired])).toEqual([['INFO', 1]]);

    const debug = captureOutput({ level: 'DEBUG' });
    try {
      outcome = { expired: 0, freed: 0 };
      await handler(event, lambdaContext('research-sweep', 1000));
    } finally {
      debug.stop();
    }
    expect(debug.logs('swept').map((line) => line.level)).toEqual(['DEBUG']);
  });
});

describe('Observation, at a level that writes none of its lines', () => {
  /** A fresh Observation at ERROR, and spies on its Powertools Logger's `methods`. */
  function quietObservability<M extends 'addContext' | 'appendKeys' | 'info'>(methods: readonly M[]) {
    const saved = { ...process.env };
    process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
    let observability!: typeof import('../../packages/runtime/src/observability');
    let powertools!: typeof import('@aws-lambda-powertools/logger');
    jest.isolateModules(() => {
      powertools = require('@aws-lambda-powertools/logger');
      observability = require('../../packages/runtime/src/observability');
    });
    process.env = saved;
    return {
      Observation: observability.Observation,
      told: methods.map((method) => jest.spyOn(powertools.Logger.prototype, method)),
    };
  }

  it('tells its logger neither the invocation nor its keys until a line is written, and works out no info line', () => {
    const { Observation, told } = quietObservability(['addContext', 'appendKeys', 'info']);
    const output = captureOutput({ level: 'ERROR' });
    try {
      const quiet = Observation.start(lambdaContext('visitor', 1000));
      quiet.keys({ route: 'GET /sites/{site_id}' });
      quiet.info('answered', { status: 200 });
      quiet.end();
      expect(told.map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0]);
      // The next invocation of the same logger, which fails: its line has its context and keys, and none of the first's.
      const failing = Observation.start(lambdaContext('visitor', 1000));
      failing.keys({ route: 'GET /sites/{site_id}/articles/{slug}' });
      failing.log.error('failed');
      failing.end();
    } finally {
      output.stop();
      for (const spy of told) spy.mockRestore();
    }
    expect(output.logs('failed')).toEqual([
      expect.objectContaining({ route: 'GET /sites/{site_id}/articles/{slug}', function_name: 'visitor' }),
    ]);
    expect(output.logs('answered')).toEqual([]);
  });

  it('tells its logger the invocation before a metric, whose warnings Metrics writes through it', () => {
    const { Observation, told } = quietObservability(['addContext']);
    const output = captureOutput({ level: 'ERROR' });
    try {
      const measured = Observation.start(lambdaContext('publish', 1000));
      measured.metric('publishes');
      expect(told[0]?.mock.calls.map(([context]) => context.functionName)).toEqual(['publish']);
      measured.end();
    } finally {
      output.stop();
      for (const spy of told) spy.mockRestore();
    }
  });
});
