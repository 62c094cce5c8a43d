import { DEFAULT_LOCALE, Locale } from '@cm/contract';

/**
 * A site's locale (`<COUNTRY>/<lang>`, `WW` worldwide) as its pages declare it: HTML's `lang`, a BCP 47
 * tag (`en-US`; a worldwide site's is the language alone, `en`), and Open Graph's `og:locale`
 * (`en_US`; none for a worldwide site, since its format needs a territory and its default is `en_US`).
 * A stored locale that is not one reads as the default (WW/en), never as markup.
 */
export function languageTags(locale: string): { lang: string; ogLocale: string | null } {
  const [country = 'WW', language = 'en'] = (Locale.safeParse(locale).success ? locale : DEFAULT_LOCALE).split('/');
  return country === 'WW'
    ? { lang: language, ogLocale: null }
    : { lang: `${language}-${country}`, ogLocale: `${language}_${country}` };
}
