import { Bug } from '@cm/core';
import { lambdaContext } from '@cm/local';
import { BULK_TARGETS, Meter, SandboxBacklinkData } from '@cm/providers';
import { resetConfig, routeHandler } from '@cm/runtime';
import { observationOf } from '../../packages/runtime/src/observability';
import { apiEvent } from '../helpers/lambda-events';
import { captureOutput } from '../helpers/output';

/* A state the code's own rules make impossible throws a Bug, and the log names it so, apart from a fault. */

describe('a state the code rules out', () => {
  it('is a Bug: an observation asked of a handler not wrapped in observed()', () => {
    expect(() => observationOf(lambdaContext('read', 1000))).toThrow(Bug);
  });

  it('is a Bug: a bulk request over BULK_TARGETS domains, which its callers split', () => {
    const domains = Array.from({ length: BULK_TARGETS + 1 }, (_, i) => `d${i}.example`);
    expect(() => new SandboxBacklinkData().numbers(domains, new Meter())).toThrow(Bug);
  });
});

describe('the log of an unhandled error', () => {
  beforeAll(() => {
    process.env.TABLE_NAME = 'content';
    resetConfig();
  });

  it('names a Bug by its name, and a fault by its own, behind the same 500 reply', async () => {
    const thrown = [new Bug('a state the rules rule out'), new Error('the table answered nonsense')];
    const handle = routeHandler(
      {
        'GET /health': async () => {
          const error = thrown.shift();
          if (!error) throw new Error('called more than twice');
          throw error;
        },
      },
      new WeakMap(),
    );
    const output = captureOutput({ level: 'INFO' });
    const replies = [];
    try {
      for (let i = 0; i < 2; i++)
        replies.push(await handle(apiEvent('GET', '/health'), lambdaContext('health', 10_000)));
    } finally {
      output.stop();
    }
    expect(replies.map((reply) => [reply.statusCode, reply.body])).toEqual([
      [500, expect.stringContaining('internal_error')],
      [500, expect.stringContaining('internal_error')],
    ]);
    expect(output.logs('unhandled error').map((line) => [line.error.name, line.error.message])).toEqual([
      ['Bug', 'a state the rules rule out'],
      ['Error', 'the table answered nonsense'],
    ]);
  });
});
