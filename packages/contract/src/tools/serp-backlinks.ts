import * as z from 'zod/mini';
import { LIMITS } from '../limits';
import { EstimateFields, withEstimate } from '../estimate';
import { DomainUnicode, ToolMeta } from './shared';
import { defineTool } from './declaration';

/**
 * A count the spec types as "number" (serp_backlinks' trend_months and limit): agents send fractions
 * and numeric strings, so both are taken, rounded down, then held to [min, max]. The JSON Schema says
 * so: a number or a numeric string, with the bounds.
 */
const count = (min: number, max: number) =>
  z
    .pipe(
      z.pipe(
        z.union(
          [z.number(), z.string().check(z.trim(), z.regex(/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/, 'must be a number'))],
          { error: 'must be a number' },
        ),
        z.transform((v) => Math.floor(Number(v))),
      ),
      z.int().check(z.minimum(min), z.maximum(max)),
    )
    .check(z.meta({ minimum: min, maximum: max }));

export const BACKLINK_DEPTHS = ['overview', 'links'] as const;

export const SerpBacklinksInput = z
  .object({
    scope: z._default(z.string().check(z.trim(), z.minLength(1), z.maxLength(300)), 'all').check(
      z.meta({
        description: 'all (the site and its tracked competitors), site, or any domain (looked up, never tracked)',
      }),
    ),
    depth: z._default(z.enum(BACKLINK_DEPTHS), 'overview'),
    // prefault, so the JSON Schema shows the default; null is taken as left out (the tool applies the default).
    trend_months: z.prefault(z.nullish(count(1, LIMITS.trendMonthsMax)), LIMITS.trendMonthsDefault),
    limit: z
      .nullish(count(1, LIMITS.linksMax))
      .check(z.meta({ description: `depth links: linking pages (default ${LIMITS.linksDefault})` })),
    ...EstimateFields,
  })
  .check(
    z.superRefine((v, ctx) => {
      if (v.limit !== undefined && v.limit !== null && v.depth !== 'links')
        ctx.addIssue({ code: 'custom', path: ['limit'], message: 'applies to depth links only' });
      if (v.depth === 'links' && v.scope === 'all')
        ctx.addIssue({
          code: 'custom',
          path: ['scope'],
          message: 'depth links takes one domain: site or a domain name',
        });
    }),
  );
export type SerpBacklinksInput = z.output<typeof SerpBacklinksInput>;

export const HEALTH_FLAGS = [
  'ratio_below_3:1',
  'spam_clean',
  'spam_elevated',
  'velocity_below_competitors',
  'dofollow_below_50pct',
  'broken_links_present',
  'anchor_overoptimized',
] as const;
export type HealthFlag = (typeof HEALTH_FLAGS)[number];

const LinkingPageSchema = z.object({
  url_from: z.string(),
  url_to: z.string(),
  anchor: z.string(),
  authority: z
    .int()
    .check(z.meta({ description: `${LIMITS.authorityMin}–${LIMITS.authorityMax}, higher is stronger` })),
  dofollow: z.boolean(),
  first_seen: z.nullable(z.string()),
});

const BacklinkProfileSchema = z.object({
  domain: z.string(),
  domain_unicode: DomainUnicode,
  is_site: z.boolean(),
  is_competitor: z.boolean(),
  snapshot_at: z.nullable(z.string()).check(z.meta({ description: 'When monitoring took it; null if live' })),
  // When monitoring took the anchors, pages and referring domains (docs/api/research-tools.md#serp_backlinks).
  detail_at: z.nullable(z.string()),
  summary: z.object({
    backlinks: z.int(),
    referring_domains: z.int(),
    rank: z.int(),
    backlinks_per_referring_domain: z.nullable(z.number()),
    spam_score: z.number(),
    broken_links: z.int(),
    dofollow_share: z.number(),
  }),
  anchors: z.array(z.object({ anchor: z.string(), backlinks: z.int(), share: z.number() })),
  top_linking_pages: z.array(LinkingPageSchema),
  referring_domains: z.array(z.object({ domain: z.string(), rank: z.int(), backlinks: z.int() })),
  health: z.array(z.enum(HEALTH_FLAGS)),
});

export const SerpBacklinksResult = z.union([
  z.object({ ...ToolMeta, empty: z.literal(true) }),
  z.object({
    ...ToolMeta,
    scope: z.string(),
    depth: z.literal('overview'),
    profiles: z.array(BacklinkProfileSchema),
    trend: z.array(
      z.object({
        domain: z.string(),
        points: z.array(
          z.object({
            month: z.string(),
            backlinks: z.int(),
            referring_domains: z.int(),
            new_referring_domains: z.int(),
            rank: z.int(),
          }),
        ),
      }),
    ),
    gap: z.array(z.object({ domain: z.string(), rank: z.int(), links_to: z.array(z.string()) })).check(
      z.meta({
        description: 'Domains linking to competitors, not the site; most competitors first',
      }),
    ),
    gap_at: z.nullable(z.string()),
    health: z
      .array(z.enum(HEALTH_FLAGS))
      .check(z.meta({ description: "The scope's own domain: the site, or the domain looked up" })),
  }),
  z.object({
    ...ToolMeta,
    scope: z.string(),
    depth: z.literal('links'),
    domain: z.string(),
    domain_unicode: DomainUnicode,
    links: z.array(LinkingPageSchema),
  }),
]);

export const SERP_BACKLINKS = defineTool({
  name: 'serp_backlinks',
  title: 'Backlink profiles and link gap',
  description: `Backlink profiles. scope all (default: the site and its tracked competitors), site, or any domain (looked up live, never added to tracking). depth overview (default): profiles (referring domains, rank, backlinks per referring domain, spam score, broken links, dofollow share, anchors, top linking pages), a monthly trend of trend_months (default ${LIMITS.trendMonthsDefault}, max ${LIMITS.trendMonthsMax}), the link gap (domains linking to competitors but not the site, ranked for outreach) and health[] flags. depth links: the linking pages of one domain (site or a domain) by authority (${LIMITS.authorityMin}–${LIMITS.authorityMax}), limit default ${LIMITS.linksDefault}, max ${LIMITS.linksMax}. { empty: true } while the site has no backlink data yet.`,
  input: SerpBacklinksInput,
  result: withEstimate(SerpBacklinksResult),
  // Live lookups are written to the usage ledger.
  grants: { table: 'readWrite', sendsTo: ['budget-warning'], secrets: ['dataforseo'] },
});
