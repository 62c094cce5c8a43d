/* The HTTP side of the runtime (`@cm/runtime/http`): a module each for the replies, the refusals, each middleware and the router. */
export { payloadTooLarge, serviceUnavailable } from './errors';
export { refuseDeepJson } from './json-body';
export { cacheableFile, cacheableHtml, html, iconReply, json } from './replies';
export {
  baseUrlOf,
  pagesBaseUrlOf,
  validate,
  type ApiEvent,
  type ApiRequest,
  type ApiResult,
  type RouteHandler,
  type State,
} from './request';
export { publicApi, routeHandler, routesOf, type Authenticate, type BodyOptions, type Handlers } from './router';
