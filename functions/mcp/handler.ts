import { mcpHandler } from '@cm/runtime/mcp';

/** POST /mcp: the Model Context Protocol endpoint; each tool call invokes that tool's own function. */
export const handler = mcpHandler();
