import middy from '@middy/core';
import { ROUTE_TABLE, routeKey } from '@cm/contract';
import { Bug } from '@cm/core';
import { lambdaContext } from '@cm/local';
import { headRequests } from '../../packages/runtime/src/http/head-requests';
import { json } from '../../packages/runtime/src/http/replies';
import type { ApiEvent, ApiResult } from '../../packages/runtime/src/http/request';
import { publicApi, routeHandler, routesOf, type Handlers } from '../../packages/runtime/src/http/router';
import { apiEvent } from '../helpers/lambda-events';

/*
 * The runtime's HTTP side, a module a job (issue 51): a middleware works on its own, outside the router,
 * and the router's "cannot happen" throws are `Bug`s, which a log tells from a fault.
 */

const handlersOf = (fn: string): Handlers =>
  Object.fromEntries(ROUTE_TABLE.filter((r) => r.fn === fn).map((r) => [routeKey(r), async () => json(200, {})]));

it('answers a HEAD request by its GET route, without the body, through the head-requests middleware alone', async () => {
  const seen: string[] = [];
  const handle = middy<ApiEvent, ApiResult>()
    .use(headRequests())
    .handler(async (event) => {
      seen.push(event.routeKey);
      return json(200, { ok: true });
    });
  const head = apiEvent('GET', '/health');
  head.routeKey = 'HEAD /health';
  head.requestContext.http.method = 'HEAD';
  const reply = await handle(head, lambdaContext('discovery', 10_000));
  expect(seen).toEqual(['GET /health']);
  expect(reply).toEqual({ ...json(200, { ok: true }), body: '' });
});

describe("the router's wiring checks", () => {
  it('throws a Bug for a function whose route has no handler', () => {
    expect(() => routesOf('read', {})).toThrow(Bug);
    expect(() => routesOf('read', {})).toThrow(/read: no handler for GET \/articles/);
  });

  it('throws a Bug when publicApi is given routes that need the API key', () => {
    expect(() => publicApi('read', handlersOf('read'))).toThrow(Bug);
    expect(() => publicApi('discovery', handlersOf('discovery'))).not.toThrow();
  });

  it("throws a Bug when a route without the API key asks for its site's root", async () => {
    const table = process.env.TABLE_NAME;
    process.env.TABLE_NAME = 'http-modules';
    let thrown: unknown;
    const handle = routeHandler(
      {
        'GET /health': async (request) => {
          try {
            request.siteRoot();
          } catch (error) {
            thrown = error;
          }
          return json(200, {});
        },
      },
      new WeakMap(),
    );
    try {
      expect((await handle(apiEvent('GET', '/health'), lambdaContext('discovery', 10_000))).statusCode).toBe(200);
    } finally {
      if (table === undefined) delete process.env.TABLE_NAME;
      else process.env.TABLE_NAME = table;
    }
    expect(thrown).toBeInstanceOf(Bug);
  });
});
