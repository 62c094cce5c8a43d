import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { ApiError, ROUTE_TABLE, routeKey, type FunctionName } from '@cm/contract';
import { Bug, siteRoot } from '@cm/core';
import { timeLimit, type TimeLimit } from '@cm/providers/time-limit';
import { checkEnvironment } from '../config';
import { crossOrigin } from '../cross-origin';
import { observationOf, observed } from '../observability';
import { errorReplies } from './error-replies';
import { serviceUnavailable } from './errors';
import { headRequests } from './head-requests';
import { jsonBody } from './json-body';
import {
  baseUrlOf,
  pagesBaseUrlOf,
  validate,
  type ApiEvent,
  type ApiResult,
  type RouteHandler,
  type State,
} from './request';
import { throughEdge } from './through-edge';

export type Handlers = Record<string, RouteHandler>;

/** How a function's routes read their bodies: as JSON (the default), or themselves (`json: false`). */
export interface BodyOptions {
  json?: boolean;
}

/** `api` for a function whose routes are all public: it never looks up a key. */
export function publicApi(fn: FunctionName, handlers: Handlers, options: BodyOptions = {}) {
  const secured = routesOf(fn, handlers).filter((r) => r.auth);
  if (secured.length > 0) throw new Bug(`${fn}: ${secured.map(routeKey).join(', ')} need the API key; use api()`);
  return routeHandler(handlers, new WeakMap(), undefined, options);
}

export function routesOf(fn: FunctionName, handlers: Handlers) {
  const routes = ROUTE_TABLE.filter((r) => r.fn === fn);
  for (const route of routes) {
    if (!handlers[routeKey(route)]) throw new Bug(`${fn}: no handler for ${routeKey(route)}`);
  }
  return routes;
}

/** Checks a request's credentials before its route's handler runs (sets the site in the state). */
export type Authenticate = (event: ApiEvent, context: Context) => Promise<void>;

/** What is left of the function's time when the route's deadline answers 503: room to send the answer. */
const DEADLINE_MARGIN_MS = 500;
/**
 * How long before that a handler is told to stop (`ApiRequest.deadline`): room to cancel the holds a run
 * placed (one or two DynamoDB writes) and answer itself, before the deadline answers for it.
 */
const ABANDON_MARGIN_MS = 1_000;

/**
 * Observation, error replies and JSON bodies, then `authenticate` (after the body) and the route's
 * handler, both within the route's deadline: the function's time less a margin, after which the answer
 * is `503 service_unavailable` rather than no answer.
 */
export function routeHandler(
  handlers: Handlers,
  state: WeakMap<ApiEvent, State>,
  authenticate?: Authenticate,
  { json = true }: BodyOptions = {},
) {
  checkEnvironment();
  return (
    middy<ApiEvent, ApiResult, Error, Context>({
      timeoutEarlyInMillis: DEADLINE_MARGIN_MS,
      timeoutEarlyResponse: () => {
        throw serviceUnavailable('The request did not finish in time');
      },
    })
      .use(
        observed<ApiEvent, ApiResult>((event, observation) =>
          observation.keys({ route: event.routeKey, api_request_id: event.requestContext.requestId }),
        ),
      )
      .use(headRequests())
      .use(crossOrigin())
      .use(errorReplies())
      .use(throughEdge())
      .use(jsonBody(state, json))
      // Not middy's handler signal: that one controller is shared by every request the module serves, so
      // one request's early timeout would abort the others (the local stack serves many at once).
      .handler(async (event, context) => {
        const handler = handlers[event.routeKey];
        if (!handler) throw new ApiError('not_found', `No route ${event.requestContext.http.method} ${event.rawPath}`);
        await authenticate?.(event, context);
        const { siteId = 0, servedDomain = null, jsonBody: parsed } = state.get(event) ?? {};
        const baseUrl = baseUrlOf(event);
        const pagesBaseUrl = pagesBaseUrlOf(event);
        const observation = observationOf(context);
        // Its timer is set when a handler first asks for it: most never do.
        const deadlineAt = Date.now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS - ABANDON_MARGIN_MS;
        let deadline: TimeLimit | undefined;
        try {
          const result = await handler({
            event,
            siteId,
            body: (schema) => validate(schema, parsed, 'body'),
            query: (schema) => validate(schema, event.queryStringParameters ?? {}, 'query'),
            params: (schema) => validate(schema, event.pathParameters ?? {}, 'path'),
            baseUrl,
            pagesBaseUrl,
            siteRoot: () => {
              if (siteId === 0) throw new Bug(`${event.routeKey} takes no API key: it has no site`);
              return siteRoot(pagesBaseUrl, { site_id: siteId, served_domain: servedDomain });
            },
            observation,
            get deadline() {
              return (deadline ??= timeLimit(deadlineAt - Date.now())).signal;
            },
          });
          observation.info('answered', { status: result.statusCode });
          return result;
        } finally {
          deadline?.clear();
        }
      })
  );
}
