import * as z from 'zod/mini';
import { Slug, withoutControlCharacters } from './common';
import { AiOverview } from './ai-overviews';

/* The research data of spec §2.7 (docs/api.md#tables): locales, keywords and the cm_* tables the db tools expose. */

/**
 * Countries a locale may name. `WW` is worldwide. Each has a DataForSEO location code in the
 * providers package, which checks at compile time that none is missing.
 */
export const COUNTRIES = [
  'WW',
  'US',
  'GB',
  'CA',
  'AU',
  'NZ',
  'IE',
  'DE',
  'AT',
  'CH',
  'FR',
  'BE',
  'NL',
  'ES',
  'PT',
  'IT',
  'SE',
  'NO',
  'DK',
  'FI',
  'PL',
  'BR',
  'MX',
  'AR',
  'IN',
  'JP',
  'SG',
  'ZA',
] as const;
export type Country = (typeof COUNTRIES)[number];
const isCountry = (code: string): code is Country => COUNTRIES.some((country) => country === code);

export const DEFAULT_LOCALE = 'WW/en';
/** `serp_keyword_refresh` is US/English Google only (spec §4.3). */
export const REFRESH_LOCALE = 'US/en';

/** `"<COUNTRY>/<lang>"`, e.g. `US/en`; `WW` is worldwide. */
export const Locale = z.string().check(
  z.regex(/^[A-Z]{2}\/[a-z]{2}$/, 'must be "<COUNTRY>/<lang>", e.g. "US/en" or "WW/en"'),
  z.refine((v) => isCountry(v.slice(0, 2)), {
    message: `country must be one of ${COUNTRIES.join(', ')}`,
  }),
);
export type Locale = z.infer<typeof Locale>;

/** Longest keyword and most words the keyword data providers accept. */
export const KEYWORD_MAX_CHARS = 80;
export const KEYWORD_MAX_WORDS = 10;

/** A search keyword: trimmed, 1–80 characters, at most 10 words, no control character (a NUL would be stored and checked). */
export const Keyword = z.string().check(
  z.trim(),
  z.minLength(1),
  z.maxLength(KEYWORD_MAX_CHARS),
  withoutControlCharacters(),
  z.refine((v) => v.split(/\s+/).length <= KEYWORD_MAX_WORDS, { message: `at most ${KEYWORD_MAX_WORDS} words` }),
);

export const INTENTS = ['informational', 'navigational', 'commercial', 'transactional'] as const;
export const Intent = z.enum(INTENTS);
export type Intent = z.infer<typeof Intent>;

export const RowId = z.int().check(z.positive());

const INEXACT =
  'must be 0, or between 1e-130 and 9007199254740991 (2^53 - 1) in size: no other number is stored exactly';
/**
 * A number a row stores or a filter compares, as DynamoDB takes it exactly: past ±(2^53 − 1) a JSON
 * number has already been rounded (and the SDK refuses it), and below 1e-130 DynamoDB underflows.
 */
export const StoredNumber = z.number().check(
  z.minimum(Number.MIN_SAFE_INTEGER, INEXACT),
  z.maximum(Number.MAX_SAFE_INTEGER, INEXACT),
  z.refine((n) => n === 0 || Math.abs(n) >= 1e-130, INEXACT),
);

/** A chart color, `#rrggbb` or the short `#rgb`, stored as `#rrggbb` in lower case. */
export const HexColor = z.pipe(
  z.string().check(z.regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex color "#rrggbb" or "#rgb"')),
  z.transform((v) => (v.length === 4 ? `#${[...v.slice(1)].map((c) => c + c).join('')}` : v).toLowerCase()),
);

/** A hostname as `add_competitor` stores it (normalized by core before this check). */
export const Domain = z
  .string()
  .check(
    z.maxLength(253),
    z.regex(
      /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/,
      'must be a domain name such as example.com',
    ),
  );

/** The cm_* tables, in the order they are listed (a literal tuple: z.enum takes a non-empty one). */
export const TABLE_NAMES = ['cm_topics', 'cm_pages', 'cm_keywords', 'cm_topic_keywords', 'cm_competitors'] as const;
export type TableName = (typeof TABLE_NAMES)[number];

/** The fields a caller may set on each table's rows (`id`, `created_at`, `updated_at` are assigned). */
export const TABLE_FIELDS = {
  cm_topics: z.object({
    name: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
    description: z.optional(z.string().check(z.maxLength(2000))),
  }),
  cm_pages: z.object({
    title: z.string().check(z.trim(), z.minLength(1), z.maxLength(500)),
    slug: z.optional(Slug),
    topic_id: z.optional(RowId),
    primary_keyword: z.optional(Keyword),
    secondary_keywords: z._default(z.array(Keyword).check(z.maxLength(50)), []),
    published_id: z
      .optional(z.string().check(z.minLength(1), z.maxLength(64)))
      .check(z.meta({ description: "The site's page id, once published" })),
  }),
  cm_keywords: z.object({
    keyword: Keyword,
    locale: z.optional(Locale).check(z.meta({ description: "Default: the site's locale" })),
    volume: z._default(z.nullable(z.int().check(z.minimum(0))), null),
    cpc_usd: z._default(z.nullable(StoredNumber.check(z.minimum(0))), null),
    competition: z._default(z.nullable(StoredNumber.check(z.minimum(0), z.maximum(1))), null),
    intent: z._default(z.nullable(Intent), null),
    is_idea: z._default(z.boolean(), false),
    page_id: z._default(z.nullable(RowId), null),
    checked_at: z._default(z.nullable(z.iso.datetime()), null),
  }),
  cm_topic_keywords: z.object({
    topic_id: RowId,
    keyword_id: RowId,
    score: z
      .optional(StoredNumber.check(z.minimum(0)))
      .check(z.meta({ description: "Default: the keyword's score from its metrics" })),
  }),
  cm_competitors: z.object({
    domain: z.string().check(z.minLength(1), z.maxLength(300)),
    display_name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
    color: z.optional(HexColor),
    active: z._default(z.boolean(), true).check(
      z.meta({
        description: 'false: stored inactive, outside the cap and not monitored, until add_competitor tracks it',
      }),
    ),
  }),
} as const satisfies Record<TableName, z.ZodMiniType>;

export const TableName = z.enum(TABLE_NAMES, {
  error: (issue) => (issue.input === undefined ? 'Required' : `must be one of ${TABLE_NAMES.join(', ')}`),
});

/** What the store assigns every row: its id (listed first) and its times (listed last). */
const RowIdField = { id: z.int() };
const RowTimes = { created_at: z.string(), updated_at: z.string() };

/**
 * Each table's rows as stored and read back: the fields db_insert takes (after their defaults), what the
 * tools add (a keyword's `data_source`, a competitor's `added_at` and `incomplete`), and the row's id and
 * times. The store decodes every row it reads with these; the replies that show rows are built on them.
 */
export const STORED_ROW_SHAPES = {
  cm_topics: { ...RowIdField, name: z.string(), description: z.optional(z.string()), ...RowTimes },
  cm_pages: {
    ...RowIdField,
    title: z.string(),
    slug: z.optional(z.string()),
    topic_id: z.optional(z.int()),
    primary_keyword: z.optional(z.string()),
    secondary_keywords: z.array(z.string()),
    published_id: z.optional(z.string()),
    ...RowTimes,
  },
  cm_keywords: {
    ...RowIdField,
    keyword: z.string(),
    locale: z.string(),
    volume: z.nullable(z.int()),
    cpc_usd: z.nullable(z.number()),
    competition: z.nullable(z.number()),
    intent: z.nullable(Intent),
    is_idea: z.boolean(),
    page_id: z.nullable(z.int()),
    checked_at: z.nullable(z.string()),
    /** Where the metrics came from: `sandbox`, `dataforseo`, or `caller` for a row inserted by hand. */
    data_source: z.string(),
    ...RowTimes,
  },
  cm_topic_keywords: {
    ...RowIdField,
    topic_id: z.int(),
    keyword_id: z.int(),
    score: z.optional(z.number()),
    ...RowTimes,
  },
  cm_competitors: {
    ...RowIdField,
    domain: z.string(),
    display_name: z.optional(z.string()),
    color: z.optional(z.string()),
    active: z.boolean(),
    added_at: z.string(),
    /** Stored by db_insert: monitoring not started yet; add_competitor completes it. */
    incomplete: z.optional(z.boolean()),
    ...RowTimes,
  },
} as const satisfies Record<TableName, z.core.$ZodLooseShape>;

/** A stored row of `T`, with whatever else it has (rows keep their stored fields). */
export type RowOf<T extends TableName> = { id: number; created_at: string; updated_at: string } & z.infer<
  z.ZodMiniObject<(typeof STORED_ROW_SHAPES)[T]>
> &
  Record<string, unknown>;
export type KeywordRow = RowOf<'cm_keywords'>;
export type CompetitorRow = RowOf<'cm_competitors'>;

/** Metrics of one keyword as a provider reports them; null where it has no figure. */
export const KeywordMetrics = z.object({
  keyword: z.string(),
  volume: z.nullable(z.number()),
  cpc_usd: z.nullable(z.number()),
  competition: z.nullable(z.number()),
  intent: z.nullable(Intent),
});
export type KeywordMetrics = z.infer<typeof KeywordMetrics>;

/** One organic result of a SERP. */
export const SerpItem = z.object({ position: z.number(), domain: z.string(), url: z.string(), title: z.string() });
export type SerpItem = z.infer<typeof SerpItem>;

/** The stored SERP competition row of a keyword in a locale (spec §2.7). */
export const SerpRow = z.object({
  keyword: z.string(),
  locale: z.string(),
  fetched_at: z.string(),
  data_source: z.string(),
  items: z.array(SerpItem),
  /** A rank check's AI Overview, when the row is one (a live pull records none). */
  ai_overview: z.optional(AiOverview),
});
export type SerpRow = z.infer<typeof SerpRow>;
