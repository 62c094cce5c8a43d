import type { Context } from 'aws-lambda';
import { ApiError, MCP_PATH } from '@cm/contract';
import { routeHandler, routesOf, type ApiEvent, type ApiResult, type Handlers } from '../http';
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
    // The MCP SDK and the tool listing load with the first call that needs them, not at cold start.
    const { handleMcp } = await import('./server');
    return handleMcp(toWebRequest(event), { event, apiKey, siteId });
  },
};

/** The mcp function's Lambda handler: observation and error replies as every route, then the endpoint. */
export function mcpHandler(): (event: ApiEvent, context: Context) => Promise<ApiResult> {
  routesOf('mcp', handlers);
  return routeHandler(handlers, new WeakMap());
}
