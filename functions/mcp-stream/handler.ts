import { mcpStreamHandler, streamifiedHandler } from '@cm/runtime/mcp';

/** The MCP endpoint again, behind a Lambda function URL that streams: progress as it comes, and approval by elicitation. */
export const stream = mcpStreamHandler();

/** @public Lambda's entry point (`index.handler`), a response-streaming handler. */
export const handler = streamifiedHandler(stream);
