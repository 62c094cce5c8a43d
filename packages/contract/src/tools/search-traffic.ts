import * as z from 'zod/mini';
import { RowId } from '../cm-tables';
import { LIMITS } from '../limits';
import { DECAY_CAUSES, REFRESH_OUTCOMES } from '../refresh-queue';
import { ToolMeta } from './shared';
import { defineTool } from './declaration';

/* search_traffic (docs/api/tracking-tools.md#search_traffic): what Search Console says of the site, a page or a topic. */

export const TRAFFIC_WINDOWS = [7, 28, 90] as const;

const listLimit = (max: number) => z.optional(z.int().check(z.minimum(1), z.maximum(max)));

export const SearchTrafficInput = z
  .object({
    page_id: z.optional(RowId),
    topic_id: z.optional(RowId),
    window_days: z._default(z.union(TRAFFIC_WINDOWS.map((days) => z.literal(days))), 28),
    // Defaults are in the description: tools/list stays small.
    pages: listLimit(LIMITS.trafficPagesMax),
    queries: listLimit(LIMITS.trafficQueriesMax),
    candidates: listLimit(LIMITS.trafficCandidatesMax),
    queue_limit: listLimit(LIMITS.refreshQueueMax),
    queue_cursor: z.optional(z.string().check(z.minLength(1))),
  })
  .check(
    z.superRefine((v, ctx) => {
      if (v.topic_id !== undefined && v.page_id !== undefined)
        ctx.addIssue({ code: 'custom', path: [], message: 'give topic_id or page_id, not both' });
      const scoped = v.topic_id !== undefined || v.page_id !== undefined;
      for (const field of ['queue_limit', 'queue_cursor'] as const)
        if (scoped && v[field] !== undefined)
          ctx.addIssue({ code: 'custom', path: [field], message: 'applies to the site (no page_id or topic_id) only' });
    }),
  );
export type SearchTrafficInput = z.output<typeof SearchTrafficInput>;

const Totals = z.object({
  clicks: z.int(),
  impressions: z.int(),
  ctr: z.nullable(z.number()),
  position: z.nullable(z.number()),
});
/** A window's dates (both included) and how many of its days are stored: a day missing is left out of its sums. */
const Window = z.object({ from: z.string(), to: z.string(), days: z.int() });

/*
 * The lists' items are loose: each has the figures of `totals` beside its own fields (docs/api/tracking-tools.md#search_traffic),
 * declared once there, so tools/list stays small.
 */
export const SearchTrafficResult = z.object({
  ...ToolMeta,
  connected: z.boolean().check(z.meta({ description: 'false: no Search Console property connected (see note)' })),
  note: z.optional(z.string()),
  scope: z.object({ type: z.enum(['site', 'page', 'topic']), id: z.nullable(z.int()), name: z.string() }),
  window: z.nullable(Window),
  previous_window: z.nullable(Window),
  totals: Totals,
  previous_totals: Totals,
  deltas: z.object({
    clicks: z.int(),
    clicks_change: z.nullable(z.number()),
    impressions: z.int(),
    ctr: z.nullable(z.number()),
    position: z.nullable(z.number()),
  }),
  pages: z.array(z.looseObject({ url: z.string(), queries: z.array(z.looseObject({ query: z.string() })) })),
  queries: z.array(
    z.looseObject({ query: z.string(), tracked: z.boolean(), pages: z.array(z.looseObject({ url: z.string() })) }),
  ),
  keyword_candidates: z.array(z.looseObject({ query: z.string() })),
  cannibalisation: z.array(
    z.object({
      query: z.string(),
      tracked: z.boolean(),
      impressions: z.int(),
      pages: z.array(z.object({ url: z.string(), impressions: z.int(), share: z.number() })),
    }),
  ),
  ctr_curve: z.string().check(z.meta({ description: "The CTR curve of the site's rank estimates" })),
  refresh_queue: z.nullable(
    z.object({
      entries: z.array(
        z.looseObject({
          page: z.object({ type: z.string(), id: z.string() }),
          cause: z.enum(DECAY_CAUSES),
          clicks_at_risk: z.int(),
          status: z.enum(['flagged', 'measuring', ...REFRESH_OUTCOMES]),
        }),
      ),
      next_cursor: z.nullable(z.string()),
    }),
  ),
});

export const SEARCH_TRAFFIC = defineTool({
  name: 'search_traffic',
  title: 'Search Console traffic, decay and the refresh queue',
  description: `Search Console's clicks, impressions, CTR and position of the site, a page or a topic over window_days (7, 28 or 90) against the window before; top pages (default ${LIMITS.trafficPagesDefault}) with their queries (default ${LIMITS.trafficQueriesDefault}), queries with their pages, untracked queries as keyword candidates (default ${LIMITS.trafficCandidatesDefault}). The site's reply lists the refresh queue: decayed pages, most clicks at risk first, cause and republish measure. Free.`,
  input: SearchTrafficInput,
  result: SearchTrafficResult,
  grants: { table: 'read' },
});
