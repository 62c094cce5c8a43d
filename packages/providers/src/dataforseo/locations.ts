import { Bug } from '@cm/core';
import type { Country } from '@cm/contract';

/**
 * DataForSEO (Google Ads geotarget) location code of each country a locale may name: 2000 plus the
 * ISO 3166-1 numeric code. `WW` (worldwide) has none.
 */
export const LOCATION_CODES: Record<Country, number | null> = {
  WW: null,
  US: 2840,
  GB: 2826,
  CA: 2124,
  AU: 2036,
  NZ: 2554,
  IE: 2372,
  DE: 2276,
  AT: 2040,
  CH: 2756,
  FR: 2250,
  BE: 2056,
  NL: 2528,
  ES: 2724,
  PT: 2620,
  IT: 2380,
  SE: 2752,
  NO: 2578,
  DK: 2208,
  FI: 2246,
  PL: 2616,
  BR: 2076,
  MX: 2484,
  AR: 2032,
  IN: 2356,
  JP: 2392,
  SG: 2702,
  ZA: 2710,
};

const isCountry = (code: string): code is Country => Object.hasOwn(LOCATION_CODES, code);

/** Where an endpoint that needs a location (Labs ideas, SERP) looks for a worldwide locale. */
export const WORLDWIDE_FALLBACK: Country = 'US';

export interface Location {
  location_code?: number;
  language_code: string;
}

/**
 * The location fields of a task for a locale. With `worldwide: true` (Google Ads search volume) a
 * `WW` locale omits `location_code`; otherwise `WW` falls back to the United States.
 */
export function locationOf(locale: string, options: { worldwide: boolean }): Location {
  const [country = '', language] = locale.split('/');
  if (language === undefined) throw new Bug(`${locale} is not a locale ("<COUNTRY>/<lang>")`);
  const code =
    (isCountry(country) ? LOCATION_CODES[country] : undefined) ??
    (options.worldwide ? null : LOCATION_CODES[WORLDWIDE_FALLBACK]);
  return code === null ? { language_code: language } : { location_code: code, language_code: language };
}
