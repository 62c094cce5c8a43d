import * as z from 'zod/mini';
import { named, PAGE_TYPES } from './common';

/*
 * Search Console's figures as the daily import stores them (docs/api/search-console.md): a site's day of
 * clicks, impressions and average position, by page, by query and by (page, query), each list capped.
 */

/** Clicks, impressions and the impression-weighted average position (1 = first) of some rows of a day. */
export const SearchFigures = {
  clicks: z.int().check(z.nonnegative()),
  impressions: z.int().check(z.nonnegative()),
  /** Null when there were no impressions. */
  position: z.nullable(z.number()),
};
export const SearchTotals = z.object(SearchFigures);
export type SearchTotals = z.infer<typeof SearchTotals>;

/** Search Console's devices (its `device` dimension, lower-cased). */
export const SEARCH_DEVICES = ['desktop', 'mobile', 'tablet'] as const;
export const SearchDevice = z.enum(SEARCH_DEVICES);
export type SearchDevice = z.infer<typeof SearchDevice>;

/** A day's figures per device that had impressions. */
export const SearchByDevice = z.partialRecord(SearchDevice, SearchTotals);

/** A page of the site the day's rows name: its URL as Search Console gives it, and the page it is, if any. */
export const SearchDayPage = z.object({
  url: z.string(),
  /** The site's page at that URL (its type and id), or null (a listing, or a page no longer served). */
  page: z.nullable(z.object({ type: z.enum(PAGE_TYPES), id: z.string() })),
  ...SearchFigures,
  devices: SearchByDevice,
});
export type SearchDayPage = z.infer<typeof SearchDayPage>;

/** A query of the day and whether one of the site's keyword rows tracks it (its text, normalized). */
export const SearchDayQuery = z.object({ query: z.string(), tracked: z.boolean(), ...SearchFigures });
export type SearchDayQuery = z.infer<typeof SearchDayQuery>;

/** A (page, query) of the day: [index in `pages`, index in `queries`, clicks, impressions, position]. */
export const SearchDayPair = z.tuple([z.int(), z.int(), z.int(), z.int(), z.number()]);
export type SearchDayPair = z.infer<typeof SearchDayPair>;

/**
 * A site's imported day. Lists are sorted by impressions (most first) and capped by LIMITS' searchDay*
 * caps; `left_out` counts what the caps left out, whose figures still count in `totals`.
 */
export const SearchDay = z.object({
  /** The day in Search Console's time zone (Pacific time), YYYY-MM-DD. */
  date: z.string(),
  /** `final`: Search Console's figures of the day are final (two to three days after it); `fresh`: they may still change. */
  data_state: z.enum(['final', 'fresh']),
  /** `sandbox`, or the real provider's name. */
  data_source: z.string(),
  imported_at: z.string(),
  /** The rows the import read: its three reads' (device × country, page × device, page × query). */
  rows: z.int(),
  totals: SearchTotals,
  devices: SearchByDevice,
  /** ISO 3166-1 alpha-3 (lower case, as Search Console gives it); the top LIMITS.searchDayCountries. */
  countries: z.array(z.object({ country: z.string(), ...SearchFigures })),
  pages: z.array(SearchDayPage),
  queries: z.array(SearchDayQuery),
  pairs: z.array(SearchDayPair),
  left_out: z.object({ pages: z.int(), queries: z.int(), pairs: z.int() }),
});
export type SearchDay = z.infer<typeof SearchDay>;

/*
 * A site's Search Console connection (docs/api/search-console.md#the-connection): the property the
 * deployment's service account reads, and the verification the site serves for it.
 */

/** The characters of a Google verification token (the content of its meta tag), and their most. */
export const VERIFICATION_TOKEN = /^[A-Za-z0-9_-]{1,100}$/;

export const SearchConsoleInput = z.object({
  property: z.string().check(
    z.minLength(1),
    z.maxLength(300),
    z.meta({
      description:
        "The Search Console property: `sc-domain:<the site's domain>` (a domain property) or `https://<the site's domain>/` (a URL-prefix property)",
    }),
  ),
  verification_token: z.optional(
    z.string().check(
      z.regex(VERIFICATION_TOKEN, 'letters, digits, - and _, 1 to 100 of them'),
      z.meta({
        description:
          "The token Google's HTML tag (its content) or HTML file (google<token>.html) method shows: the site's domain then serves both",
      }),
    ),
  ),
});
export type SearchConsoleInput = z.output<typeof SearchConsoleInput>;

export const SEARCH_CONSOLE_STATUSES = ['pending', 'connected', 'failed'] as const;

export const SearchConsoleView = named(
  z.object({
    property: z.string(),
    status: z.enum(SEARCH_CONSOLE_STATUSES).check(
      z.meta({
        description:
          'pending: no import has ended yet; connected: the last import read the property; failed: the last import could not (last_error says why)',
      }),
    ),
    service_account_email: z.nullable(z.string()).check(
      z.meta({
        description:
          'The account to add as a (restricted) user of the property in Search Console; null in the sandbox, which needs none',
      }),
    ),
    verification: z.nullable(z.object({ meta_tag: z.string(), file_url: z.string() })).check(
      z.meta({
        description:
          "What the site's domain serves for Google's HTML tag and HTML file methods; null without a verification token",
      }),
    ),
    imported_through: z
      .nullable(z.string())
      .check(z.meta({ description: 'The last day (YYYY-MM-DD) an import stored; null before the first' })),
    last_error: z.nullable(z.string()),
    connected_at: z.string(),
  }),
  { id: 'SearchConsole', description: "This site's Search Console connection" },
);
export type SearchConsoleView = z.output<typeof SearchConsoleView>;

/** The search-console queue's message: import the site's day, final or fresh. */
export const SearchConsoleMessage = z.object({
  site_id: z.int(),
  date: z.string(),
  state: z.enum(['final', 'fresh']),
});
export type SearchConsoleMessage = z.output<typeof SearchConsoleMessage>;
