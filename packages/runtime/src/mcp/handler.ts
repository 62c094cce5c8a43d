import type { Context } from 'aws-lambda';
import { ApiError, MCP_PATH } from '@cm/contract';
import { routeHandler, routesOf, type ApiEvent, type ApiResult, type Handlers } from '../http';
import { logger } from '../observability';
import { getStore } from '../services';
import { checkCaller } from './access';
import { toWebRequest } from './web-seam';

/* The mcp function's routes: POST /mcp once its caller is checked; GET and DELETE refused. */

const notAllowed = () =>
  new ApiError(
    'method_not_allowed',
    `${MCP_PATH} takes POST only: the endpoint is stateless and streams nothing`,
    {},
    { allow: 'POST' },
  );

const handlers: Handlers = {
  [`GET ${MCP_PATH}`]: async () => {
    throw notAllowed();
  },
  [`DELETE ${MCP_PATH}`]: async () => {
    throw notAllowed();
  },
  [`POST ${MCP_PATH}`]: async ({ event, observation }) => {
    const { apiKey, siteId } = await checkCaller(event);
    observation.keys({ site_id: siteId });
    // The MCP server (the SDK, the tool listing, the Lambda client) loads with the first call, not at cold start.
    const { handleMcp } = await import('./load-server');
    return handleMcp(toWebRequest(event), { event, apiKey, siteId, store: getStore(), logger });
  },
};

/** The mcp function's Lambda handler: observation and error replies as every route, then the endpoint. */
export function mcpHandler(): (event: ApiEvent, context: Context) => Promise<ApiResult> {
  routesOf('mcp', handlers);
  return routeHandler(handlers, new WeakMap());
}
