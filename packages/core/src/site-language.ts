/**
 * A site's locale (`<COUNTRY>/<lang>`, as keywords have it: `US/en`) as a BCP 47 language tag, for
 * `xml:lang` and `lang`: `en-US`; `WW` is no country (worldwide), so `WW/en` is `en`.
 */
export function languageTag(locale: string): string {
  const [country = '', language = ''] = locale.split('/');
  if (!/^[a-z]{2}$/.test(language)) return 'en';
  return /^[A-Z]{2}$/.test(country) && country !== 'WW' ? `${language}-${country}` : language;
}
