import type middy from '@middy/core';
import { servedRouteKey } from '@cm/contract';
import type { ApiEvent, ApiResult } from './request';

/**
 * A HEAD request is served by its GET route, and answered with that route's status and headers and no
 * body, errors included (its onError runs after the error replies').
 */
export const headRequests = (): middy.MiddlewareObj<ApiEvent, ApiResult> => {
  const withoutBody = (request: middy.Request<ApiEvent, ApiResult>) => {
    if (request.event.requestContext.http.method === 'HEAD' && request.response)
      request.response = { ...request.response, body: '' };
  };
  return {
    before: async ({ event }) => {
      event.routeKey = servedRouteKey(event.routeKey);
    },
    after: async (request) => withoutBody(request),
    onError: async (request) => withoutBody(request),
  };
};
