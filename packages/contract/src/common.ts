import * as z from 'zod/mini';
import './zod-config';

/**
 * A schema the OpenAPI document names (a component). The name is registered on the schema itself, as
 * classic zod's `.meta()` did: a `z.meta` check would be copied into every later `.check()` of it, and
 * two schemas of one id make the JSON Schema conversion throw.
 */
export function named<S extends z.ZodMiniType>(schema: S, meta: { id: string; description?: string }): S {
  z.globalRegistry.add(schema, meta);
  return schema;
}

/** A JSON object (not an array, not null): what parsed JSON is narrowed to before its fields are read. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A property of a value whose type says nothing of it (a caught error, an untyped library's object); undefined when it has none. */
export const propertyOf = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;

/** How every site API key begins (an OAuth access token never does): a key is told from a token by it. */
export const API_KEY_PREFIX = 'cmk_';

export const PAGE_TYPES = ['article', 'question'] as const;
export type PageType = (typeof PAGE_TYPES)[number];

export const PAGE_STATUSES = ['draft', 'published'] as const;
export const PageStatus = built(() => z.enum(PAGE_STATUSES));
export type PageStatus = z.infer<typeof PageStatus>;

/** A control character (C0, DEL, C1): NUL, tab, line breaks, escapes. */
const CONTROL_CHARACTER = /\p{Cc}/u;
/** What a text with a control character is told: a keyword or a name is typed text, and a NUL or an escape in it is a mistake. */
const NO_CONTROL_CHARACTERS =
  'must not contain control characters (U+0000-U+001F, U+007F-U+009F: NUL, tab, line breaks)';
/** Whether `text` has a control character: one stored before they were refused still has. */
export const hasControlCharacters = (text: string): boolean => CONTROL_CHARACTER.test(text);
/** The check that refuses a string with a control character, with NO_CONTROL_CHARACTERS. */
export const withoutControlCharacters = () =>
  z.refine<string>((text) => !hasControlCharacters(text), { message: NO_CONTROL_CHARACTERS });

/** The longest slug, in characters (Unicode code points). The table sees a slug only hashed, in the page id. */
export const SLUG_MAX_CHARS = 512;

/**
 * One lowercase segment (docs/api.md#slugs-and-ids): no `/`, whitespace, control or invisible formatting
 * character, lone surrogate, or character that lowercasing changes (`Ü`), and not `.` or `..`, which URLs
 * resolve away. `?` and `#` are refused too: API Gateway's HTTP APIs cut a path at a decoded `?`, so
 * such a page's visitor URL could not reach it.
 */
export const SLUG_PATTERN = new RegExp(
  String.raw`^(?!\.\.?$)[^/?#\s\p{Cc}\p{Cf}\p{Cs}\p{Changes_When_Lowercased}]{1,${SLUG_MAX_CHARS}}$`,
  'u',
);
/** Compared and stored in Unicode NFC, so `café` is one slug however the client composed its `é`. */
export const Slug = built(() =>
  z
    .string()
    .check(
      z.normalize('NFC'),
      z.regex(
        SLUG_PATTERN,
        `must be one lowercase segment of 1-${SLUG_MAX_CHARS} characters: no capital letters, whitespace, control characters, / ? or #, and not . or .. (e.g. best-running-shoes)`,
      ),
    ),
);

/**
 * The forms of ISO 8601 / RFC 3339 dates and date-times that clients send: extended
 * (`2025-01-02T03:04:05Z`) or basic (`20250102T030405Z`) format; `T`, `t` or a space before the time;
 * minutes, seconds and a fraction (`.` or `,`) optional; zone `Z`, `z`, `±hh:mm`, `±hhmm`, `±hh` or
 * none. The backreferences keep the date, and the time, each in one format (`2025-0102` is no date).
 */
const ISO_DATE_TIME =
  /^(\d{4})(-?)(\d{2})\2(\d{2})(?:[T ](\d{2})(?:(:?)(\d{2})(?:\6(\d{2})(?:[.,](\d+))?)?)?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?)?)?$/i;

const MINUTES_PER_DAY = 24 * 60;

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

interface IsoDate {
  /** The calendar date, in extended format (`YYYY-MM-DD`) whichever format it was sent in. */
  date: string;
  /** The instant; a date alone is its midnight UTC. */
  instant: Date;
  hasTime: boolean;
  /** It named its zone (`Z` or an offset). */
  zoned: boolean;
}

/**
 * Reads an ISO 8601 date or date-time (the forms of ISO_DATE_TIME). A date-time without a zone is UTC.
 * Null for any other text, and for dates and times that do not exist (`2025-02-30`, `25:00`). A second
 * 60 is a leap second, allowed only in the last minute of a UTC day; it counts as the next day's start.
 * Fractions finer than milliseconds are cut.
 */
function parseIsoDate(text: string): IsoDate | null {
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return null;
  const [, y = '', , mo = '', d = '', h, , mi, s, fraction = '', , sign, zoneHours, zoneMinutes] = m;
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  const [hour, minute, second] = [Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0)];
  const [offsetHours, offsetMins] = [Number(zoneHours ?? 0), Number(zoneMinutes ?? 0)];
  const offset = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  const utcMinuteOfDay = (((hour * 60 + minute - offset) % MINUTES_PER_DAY) + MINUTES_PER_DAY) % MINUTES_PER_DAY;
  const exists =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    (second <= 59 || (second === 60 && utcMinuteOfDay === MINUTES_PER_DAY - 1)) &&
    offsetHours <= 23 &&
    offsetMins <= 59;
  if (!exists) return null;
  const instant = new Date(0);
  // setUTCFullYear takes a year below 100 as it is (Date.UTC would read 0025 as 1925).
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(hour, minute - offset, second, Number(fraction.padEnd(3, '0').slice(0, 3)));
  // An offset can push an instant out of the years 0000-9999, whose UTC text would no longer sort as a timestamp.
  const utcYear = instant.getUTCFullYear();
  if (utcYear < 0 || utcYear > 9999) return null;
  return {
    date: `${y}-${mo}-${d}`,
    instant,
    hasTime: h !== undefined,
    zoned: sign !== undefined || m[10] !== undefined,
  };
}

/** An ISO 8601 date or date-time as the UTC timestamp it stands for (`2025-01-02T01:04:05.000Z`), or null. */
export function isoTimestamp(text: string): string | null {
  return parseIsoDate(text)?.instant.toISOString() ?? null;
}

/** An ISO 8601 date-time that names its zone (`Z` or an offset) as its UTC timestamp, or null: a time to act at is never guessed. */
function zonedTimestamp(text: string): string | null {
  const parsed = parseIsoDate(text);
  return parsed?.hasTime && parsed.zoned ? parsed.instant.toISOString() : null;
}

/** A date stays a date (`2025-01-02`, from `20250102` too); a date-time becomes its UTC timestamp. Null when neither. */
export function isoDateOrTimestamp(text: string): string | null {
  const parsed = parseIsoDate(text);
  if (!parsed) return null;
  return parsed.hasTime ? parsed.instant.toISOString() : parsed.date;
}

/**
 * A schema made by `make`, in a call a bundler may drop where the schema is not used (a chain of
 * `.check()` calls is otherwise kept, as a method call might do anything): every function's bundle
 * carries the contract's common schemas, and builds at its cold start only those it uses.
 */
/* @__NO_SIDE_EFFECTS__ */
function built<S>(make: () => S): S {
  return make();
}

/** A string that `normalize` accepts, replaced by what it returns. */
const normalizedString = (normalize: (text: string) => string | null, message: string) =>
  z.pipe(
    z.string(),
    z.transform((value, ctx) => {
      const normalized = normalize(value);
      if (normalized !== null) return normalized;
      // A mini transform's context is the parse payload: the issue goes on its list.
      ctx.issues.push({ code: 'custom', message, input: value });
      return z.NEVER;
    }),
  );

/** An ISO 8601 date or date-time, in any form `isoTimestamp` reads; stored and returned as UTC (docs/api.md#conventions). */
export const Timestamp = built(() =>
  normalizedString(
    isoTimestamp,
    'must be an ISO 8601 date or date-time in the years 0000-9999 (UTC), e.g. 2026-11-21T09:30:00Z',
  ).check(
    z.meta({
      description: 'ISO 8601 date-time (a zone-less one is UTC) or date (its midnight UTC); stored in UTC.',
    }),
  ),
);

/** A time a page is published or taken down at (docs/api/publishing.md#pages-on-a-schedule): a date-time with its zone, stored in UTC. */
export const ZonedTimestamp = built(() =>
  normalizedString(
    zonedTimestamp,
    'must be an ISO 8601 date-time with its zone (Z or an offset), e.g. 2026-11-21T09:30:00+01:00',
  ).check(z.meta({ description: 'ISO 8601 date-time with Z or an offset; stored and returned in UTC.' })),
);

/**
 * A source's `accessed_at`: the spec types it only as a date string, so an ISO 8601 date or date-time is
 * a date kept as a date, a date-time stored as UTC, and anything else ("Oct 1, 2026") is kept as sent (a publish warns).
 */
export const LenientDate = built(() =>
  z
    .pipe(
      z.string(),
      z.transform((value) => isoDateOrTimestamp(value) ?? value),
    )
    .check(
      z.meta({
        description:
          'ISO 8601 date, kept as a date, or date-time, stored in UTC; any other text is stored as sent, with a warning.',
      }),
    ),
);

export function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** Any absolute URL. Whether it is ever rendered is decided by the renderer's scheme allow-list. */
export const AbsoluteUrl = built(() =>
  z.string().check(z.refine((v) => parseUrl(v) !== null, 'must be an absolute URL')),
);

/** An absolute http(s) URL. */
export const HttpUrl = built(() =>
  z.string().check(
    z.refine((v) => {
      const url = parseUrl(v);
      return url !== null && (url.protocol === 'http:' || url.protocol === 'https:');
    }, 'must be an absolute http or https URL'),
  ),
);

/**
 * The `site_id` a publish body may carry (spec §4.1 rule 3). Any value gets through here: the key's site
 * decides, before the rest of the body is validated (docs/api.md#authentication). Documented as the
 * integer a client should send.
 */
export const BodySiteId = built(() =>
  z.optional(z.unknown()).check(
    z.meta({
      type: 'integer',
      description: "The API key's site (or its decimal string); any other value is 403 site_mismatch.",
    }),
  ),
);

/** Only the `site_id` of a body, read before the rest of it. */
export const SiteIdBody = built(() => z.object({ site_id: BodySiteId }));

export const StringList = built(() => z.array(z.string()));

/** `GET /health`: `deep=1` also reads the table. */
export const HealthQuery = built(() =>
  z.object({
    deep: z._default(z.enum(['0', '1']), '0').check(
      z.meta({
        description:
          '1: also read the table (one cheap read), and answer 503 service_unavailable when it cannot be reached',
      }),
    ),
  }),
);

export const HealthReply = built(() => z.object({ ok: z.literal(true) }));

/** A dashboard file by name; only the names the build made are found (404 otherwise), so no path can climb out. */
export const DashboardAssetParams = built(() => z.object({ file: z.string() }));
