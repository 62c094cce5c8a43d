/* The HTTP side of the runtime (`@cm/runtime/http`), a module each: the replies, the refusals, each middleware and the router. */
export { payloadTooLarge } from './errors';
export { json } from './replies';
export type { ApiRequest } from './request';
export { publicApi, routeHandler } from './router';
