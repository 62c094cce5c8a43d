import { VERIFICATION_TOKEN } from '@cm/contract';
import { daysEndingOn } from './ranks';

/*
 * A Search Console property and the verification a site serves for it
 * (docs/api/search-console.md#the-connection): a domain property (`sc-domain:example.com`) or a
 * URL-prefix one at the domain's root (`https://example.com/`, `https://www.example.com/`).
 */

const DOMAIN_PROPERTY = 'sc-domain:';

/** A property read: its kind, its host (lower case, punycode) and how the service stores it. */
interface PropertyName {
  kind: 'domain' | 'prefix';
  host: string;
  canonical: string;
}

/** The host of a name as a URL's host reads it (lower case, punycode), or null when it is none. */
function hostOf(name: string): string | null {
  try {
    return new URL(`https://${name}/`).hostname || null;
  } catch {
    return null;
  }
}

/** A domain property (`sc-domain:example.com`) or a URL-prefix one at a host's root (`https://example.com/`), or null. */
export function propertyName(property: string): PropertyName | null {
  if (property.startsWith(DOMAIN_PROPERTY)) {
    const name = property.slice(DOMAIN_PROPERTY.length);
    const host = /^[^\s/:@?#\\]+$/.test(name) ? hostOf(name) : null;
    return host ? { kind: 'domain', host, canonical: `${DOMAIN_PROPERTY}${host}` } : null;
  }
  let url: URL;
  try {
    url = new URL(property);
  } catch {
    return null;
  }
  const atRoot = url.protocol === 'https:' && url.pathname === '/' && property.endsWith('/') && !url.search;
  return atRoot && !url.username && !url.password && !url.port
    ? { kind: 'prefix', host: url.hostname, canonical: `https://${url.hostname}/` }
    : null;
}

/** The file Google's HTML file method asks for at the domain's root. */
export const verificationFile = (token: string): string => `google${token}.html`;

/** What that file holds, as Google's method gives it. */
export const verificationFileBody = (token: string): string => `google-site-verification: ${verificationFile(token)}`;

/** The token a file at the domain's root is the verification file of, or null. */
export function tokenOfVerificationFile(file: string): string | null {
  const token = /^google(.+)\.html$/.exec(file)?.[1];
  return token !== undefined && VERIFICATION_TOKEN.test(token) ? token : null;
}

/** The meta tag of Google's HTML tag method, in the home page's head (the token's characters need no escaping). */
export const verificationMetaTag = (token: string): string =>
  `<meta name="google-site-verification" content="${token}">`;

/** Days after a day that Search Console's figures of it are final: the daily import takes the day this far back. */
const SEARCH_LAG_DAYS = 3;
/**
 * Days the daily plan asks, ending on the daily import's day: a day Google has not made final yet
 * answers no rows, so the next two days' plans ask it again.
 */
const SEARCH_PLAN_DAYS = 3;
/** Days a new connection imports at once: two 28-day windows, so decay can compare them from the start. */
const SEARCH_BACKFILL_DAYS = 56;

/** Search Console counts its days in Pacific time, as Google's API documents. */
const SEARCH_CONSOLE_DAY = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/Los_Angeles',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** Search Console's day (YYYY-MM-DD, Pacific time) at `now`. */
export const searchConsoleToday = (now: Date): string => SEARCH_CONSOLE_DAY.format(now);

/** The day the daily import of `today` (Search Console's day, YYYY-MM-DD) takes: final by then. */
export const searchImportDay = (today: string): string => daysEndingOn(today, SEARCH_LAG_DAYS + 1)[0] ?? today;

/** The days the daily plan of `today` asks, newest first: the import's day and the two before it. */
export const searchPlanDays = (today: string): string[] =>
  daysEndingOn(searchImportDay(today), SEARCH_PLAN_DAYS).reverse();

/**
 * Whether an empty final answer for `date` on `today` is the day's figures (no traffic): only for the
 * oldest day the plan asks, or older; a newer one may just not be final yet and is asked again.
 */
export const emptyDayIsFinal = (date: string, today: string): boolean => date <= (searchPlanDays(today).at(-1) ?? date);

/** The days a connection made on `today` imports at once, oldest first, ending on the daily import's day. */
export const searchBackfillDays = (today: string): string[] =>
  daysEndingOn(searchImportDay(today), SEARCH_BACKFILL_DAYS);
