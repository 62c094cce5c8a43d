import * as z from 'zod/mini';
import { PAGE_TYPES, PageStatus } from './common';
import { LIMITS } from './limits';
import { TOOL_NAMES, toolFunction } from './tool-heads';
import type { McpToolName } from './mcp-tools';

export {
  isMcpExtraTool,
  isMcpToolName,
  MCP_EXTRA_TOOLS,
  MCP_TOOL_NAMES,
  mcpHintsOf,
  type McpExtraTool,
  type McpToolName,
} from './mcp-tools';
import type { FunctionName } from './functions';

/*
 * The MCP endpoint (docs/api.md#mcp): the research tools of the registry (tools.ts) under their names,
 * plus the tools only agents need. What is MCP-specific about a tool lives here (its title and hints in mcp-tools.ts).
 */

/**
 * The functions the mcp function invokes, and may invoke (lambda:InvokeFunction on each, nothing else):
 * each research tool's own, jobs (get_job), usage (get_usage), read (find_pages, list_revisions) and
 * publish (restore_revision).
 */
export const MCP_INVOKES: readonly FunctionName[] = [
  ...new Set<FunctionName>([...TOOL_NAMES.map(toolFunction), 'jobs', 'usage', 'read', 'publish']),
];

export const GetJobInput = z.object({
  job_id: z.string().check(z.minLength(1), z.maxLength(100)),
  wait_ms: z
    .optional(z.int().check(z.minimum(0), z.maximum(LIMITS.waitMsMax)))
    .check(z.meta({ description: `Wait up to this long for the job to end (max ${LIMITS.waitMsMax})` })),
});
export type GetJobInput = z.output<typeof GetJobInput>;

export const FindPagesInput = z.object({
  query: z
    .optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(200)))
    .check(
      z.meta({ description: 'Words that must all appear in the slug or title (case-insensitive, anywhere in a word)' }),
    ),
  type: z
    .optional(z.enum(PAGE_TYPES))
    .check(z.meta({ description: 'article or question; both by default (articles first)' })),
  status: z.optional(PageStatus),
  limit: z._default(z.int().check(z.minimum(1), z.maximum(LIMITS.findPagesMax)), LIMITS.findPagesDefault),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2000))),
});
export type FindPagesInput = z.output<typeof FindPagesInput>;

export const FoundPage = z.object({
  id: z
    .string()
    .check(z.meta({ description: 'The page id: link with [text](page:<id>), or list it in related_*_ids' })),
  type: z.enum(PAGE_TYPES),
  slug: z.string(),
  title: z.string().check(z.meta({ description: "An article's title, a question's question" })),
  status: PageStatus,
  live: z.boolean(),
  deleted: z.boolean(),
  url: z.string().check(z.meta({ description: 'The visitor page' })),
  updated_at: z.string(),
});

export const FindPagesResult = z.object({
  pages: z.array(FoundPage),
  examined: z.int().check(z.meta({ description: 'Listing entries this call looked through' })),
  next_cursor: z
    .nullable(z.string())
    .check(z.meta({ description: 'More pages (or more to search): call again with it' })),
});
export type FindPagesResult = z.output<typeof FindPagesResult>;

/** The MIME type of an MCP App's HTML resource (the ext-apps extension, io.modelcontextprotocol/ui). */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * The MCP Apps (docs/api.md#mcp-apps): each a `ui://` HTML resource, built from the dashboard's own
 * view and chart code into one file (`file`, in the mcp function's `mcp-apps/` folder), that draws the
 * result of the tools listed. A tool links it by `_meta.ui.resourceUri`.
 */
export const MCP_APPS = {
  keyword_landscape: {
    uri: 'ui://content-research/keyword-landscape.html',
    file: 'keyword-landscape.html',
    title: 'Keyword landscape',
    description: 'Share of voice per domain, the site and its competitors in their colours, and the keywords behind it',
    tools: ['serp_landscape'],
  },
  backlinks: {
    uri: 'ui://content-research/backlinks.html',
    file: 'backlinks.html',
    title: 'Backlinks',
    description: 'Referring domains over time for the site and each competitor, and the link gap',
    tools: ['serp_backlinks'],
  },
  spend: {
    uri: 'ui://content-research/spend.html',
    file: 'spend.html',
    title: 'Spend against budget',
    description: 'Paid provider spend per tool and provider against the daily and monthly budget',
    tools: ['get_usage'],
  },
  search_traffic: {
    uri: 'ui://content-research/search-traffic.html',
    file: 'search-traffic.html',
    title: 'Search traffic',
    description:
      "Search Console's clicks, impressions, CTR and position against the window before, the top pages and queries, keyword candidates and the refresh queue",
    tools: ['search_traffic'],
  },
} as const satisfies Record<
  string,
  { uri: string; file: string; title: string; description: string; tools: readonly McpToolName[] }
>;
export type McpAppName = keyof typeof MCP_APPS;

/**
 * The streaming MCP endpoint's time limit, as its function's (a Lambda function URL's, where API
 * Gateway's 30 s do not apply): room for a call that waits for the user's approval, then runs.
 */
export const MCP_STREAM_TIMEOUT_SECONDS = 300;
