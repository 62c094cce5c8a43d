import { DEFAULT_LOCALE, Locale } from '@cm/contract';

interface LanguageTags {
  lang: string;
  ogLocale: string | null;
}

/**
 * Each locale's tags as worked out the first time: a site's locale heads every page of it, and checking
 * it is most of the work. A few hundred at most (a deployment's sites have few locales between them).
 */
const known = new Map<string, LanguageTags>();
const LOCALES_KEPT = 256;

/**
 * A site's locale (`<COUNTRY>/<lang>`, `WW` worldwide) as its pages declare it: HTML's `lang`, a BCP 47
 * tag (`en-US`; a worldwide site's is the language alone, `en`), and Open Graph's `og:locale`
 * (`en_US`; none for a worldwide site, since its format needs a territory and its default is `en_US`).
 * A stored locale that is not one reads as the default (WW/en), never as markup.
 */
export function languageTags(locale: string): LanguageTags {
  const kept = known.get(locale);
  if (kept) return kept;
  const [country = 'WW', language = 'en'] = (Locale.safeParse(locale).success ? locale : DEFAULT_LOCALE).split('/');
  const tags = Object.freeze(
    country === 'WW'
      ? { lang: language, ogLocale: null }
      : { lang: `${language}-${country}`, ogLocale: `${language}_${country}` },
  );
  if (known.size >= LOCALES_KEPT) known.clear();
  known.set(locale, tags);
  return tags;
}
