import * as z from 'zod/mini';
import { isToolName, TOOL_NAMES, type ToolName } from '../tool-heads';
import type { ToolDeclaration } from './declaration';
// Evaluated in this order, so the named schemas (Job, the rank moves, KeywordRow, SerpSummary) keep
// their place among the OpenAPI document's components, which are in the order they are made.
import { RESEARCH } from './research';
import { RECALL } from './recall';
import { TRACK_RANKINGS } from './track-rankings';
import { GET_KEYWORDS } from './get-keywords';
import { SERP_LANDSCAPE } from './serp-landscape';
import { SERP_KEYWORD_REFRESH } from './serp-keyword-refresh';
import { SERP_BACKLINKS } from './serp-backlinks';
import { ADD_COMPETITOR } from './add-competitor';
import { SEARCH_TRAFFIC } from './search-traffic';
import { DB_SELECT } from './db-select';
import { DB_INSERT } from './db-insert';
import { DB_DELETE } from './db-delete';

// Re-exported from their files, not through the registry below: a tool's function then bundles its own file only.
export { type ToolDeclaration } from './declaration';
export { RESEARCH } from './research';
export { RECALL } from './recall';
export { GET_KEYWORDS, GetKeywordsInput } from './get-keywords';
export { SERP_LANDSCAPE, SerpLandscapeInput, SerpLandscapeResult } from './serp-landscape';
export { SERP_KEYWORD_REFRESH, SerpKeywordRefreshInput, SerpKeywordRefreshResult } from './serp-keyword-refresh';
export { SERP_BACKLINKS, SerpBacklinksInput, SerpBacklinksResult, type HealthFlag } from './serp-backlinks';
export { ADD_COMPETITOR, AddCompetitorInput, AddCompetitorResult } from './add-competitor';
export { TRACK_RANKINGS } from './track-rankings';
export { SEARCH_TRAFFIC, SearchTrafficInput, SearchTrafficResult } from './search-traffic';
export { DB_SELECT, DbSelectInput, DbSelectResult } from './db-select';
export { DB_INSERT, DbInsertInput } from './db-insert';
export { DB_DELETE, DbDeleteInput } from './db-delete';
export { TOOL_META_FIELDS } from './shared';

/* The research tools (spec §4.3, docs/api.md#research-tools): the registry of their declarations. */

/** Each research tool's declaration by its name: the compiler refuses a tool without one, or under another's name. */
export const TOOLS = {
  research: RESEARCH,
  recall: RECALL,
  get_keywords: GET_KEYWORDS,
  serp_landscape: SERP_LANDSCAPE,
  serp_keyword_refresh: SERP_KEYWORD_REFRESH,
  serp_backlinks: SERP_BACKLINKS,
  add_competitor: ADD_COMPETITOR,
  track_rankings: TRACK_RANKINGS,
  search_traffic: SEARCH_TRAFFIC,
  db_select: DB_SELECT,
  db_insert: DB_INSERT,
  db_delete: DB_DELETE,
} as const satisfies { [N in ToolName]: ToolDeclaration<N> };

/** What a tool's workflow is given: its input as the tool's schema parsed it. */
export type ToolInput<N extends ToolName> = z.output<(typeof TOOLS)[N]['input']>;
/** What a tool answers: its result schema's shape. */
export type ToolResult<N extends ToolName> = z.input<(typeof TOOLS)[N]['result']>;

/**
 * A tool's declaration as a generic tool name sees it: its input schema parses to that tool's input
 * (indexing TOOLS with a generic name would type every tool's).
 */
export type ToolDeclarationOf<N extends ToolName> = ToolDeclaration<N, z.ZodMiniType<ToolInput<N>>>;

/** The tools in the order they are listed (TOOL_HEADS's). */
export const TOOL_LIST: readonly ToolDeclaration[] = /* @__PURE__ */ TOOL_NAMES.map((name) => TOOLS[name]);

export const toolSpec = (name: string): ToolDeclaration | undefined => (isToolName(name) ? TOOLS[name] : undefined);

export const ToolListing = z.array(
  z.object({ name: z.string(), description: z.string(), input_schema: z.record(z.string(), z.unknown()) }),
);

/** `GET /v1/tools`: each tool with a JSON Schema of its input, generated from the zod schema that validates it. */
export function toolListing(): z.output<typeof ToolListing> {
  return TOOL_LIST.map((tool) => {
    const { $schema: _ignored, ...input_schema } = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' });
    return { name: tool.name, description: tool.description, input_schema };
  });
}
