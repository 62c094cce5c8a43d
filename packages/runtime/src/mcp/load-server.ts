/*
 * The MCP server as the handler loads it, with the first request. In the mcp function's bundle
 * `./server` is a file of its own (`server.js`, infra/bundling.ts): this module's import of it
 * becomes a require() that runs only when this module is first imported, so a cold start neither
 * parses nor runs the server, the MCP SDK or the Lambda client. Run from source, it is the module.
 */

export { handleMcp } from './server';
