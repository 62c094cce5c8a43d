import { isMcpExtraTool, isMcpToolName, MCP_EXTRA_TOOLS, MCP_TOOL_NAMES, TOOL_NAMES } from '@cm/contract';
import { hasOwnCursor, runsAsTask } from '../../packages/runtime/src/mcp/tool-kinds';

/* A tool's name is a string once, where tools/call comes in (runtime's mcp/server.ts); past it, a name is a McpToolName. */

it('knows a tool by its name, and nothing else by any name', () => {
  expect(MCP_TOOL_NAMES.filter(isMcpToolName)).toEqual(MCP_TOOL_NAMES);
  expect(['no_such_tool', 'toString', '__proto__', 'Research', '', undefined, null, 1].filter(isMcpToolName)).toEqual(
    [],
  );
  expect(MCP_TOOL_NAMES.filter(isMcpExtraTool)).toEqual(MCP_EXTRA_TOOLS);
  expect(TOOL_NAMES.filter(isMcpExtraTool)).toEqual([]);
});

it('asks what a tool does of tools only, and of a stored task its tool as stored', () => {
  expect(MCP_TOOL_NAMES.filter(hasOwnCursor)).toEqual([
    'db_select',
    'find_pages',
    'list_revisions',
    'restore_revision',
  ]);
  expect(MCP_TOOL_NAMES.filter(runsAsTask)).toEqual(['research']);
  expect(runsAsTask('no_such_tool')).toBe(false);
  // @ts-expect-error a string is not a tool's name past the dispatch (npm test typechecks this file)
  expect(hasOwnCursor('no_such_tool')).toBe(false);
});
