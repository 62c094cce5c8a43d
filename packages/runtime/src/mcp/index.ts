/*
 * The MCP endpoint (docs/api.md#mcp): Streamable HTTP, stateless (a fresh server per request; a
 * session id only says a client answers elicitations), JSON responses, or event streams: read whole
 * behind API Gateway, written as they come on the streaming endpoint (a function URL). A tool call is run by the tool's own function, invoked with the event
 * the HTTP API would send for `POST /v1/tools/{name}`: the same validation, workflow, meter, usage
 * ledger and reply, under that function's own least-privilege role.
 */

export { mcpHandler, mcpStreamHandler, type McpStreamHandler } from './handler';
export { streamifiedHandler } from './lambda-stream';
export { setFunctionInvoker } from './invoker';
export { toWebRequest, fromWebResponse } from './web-seam';
export { apiKeyOf } from './access';
export { originAllowed } from '../cross-origin';
