import { SERVICE_LIMITS, type PageDoc } from '@cm/contract';
import { isArticleDoc, pageBlocks } from './pages';
import { plainText, preview } from './render';
import { sectionSlug, type Section } from './site-urls';

/** A section a page is listed in, with its name as the page sent it (the section page's heading). */
export interface NamedSection extends Section {
  name: string;
}

/** What the site's listing pages, sitemaps and feed show of a page, decided at its publish. */
export interface PageCard {
  /** Its meta description, else about 200 characters of its first words; null when it has no text. */
  card_text: string | null;
  category: string | null;
  noindex: boolean;
  canonical_url: string | null;
  /** Its category's page (an article), or its topics' pages (a question), the first `topicsListedMax`. */
  sections: NamedSection[];
}

/** Sections by name: one per slug (the first name sent for it), none for a name with no letter or digit. */
function sectionsOf(kind: Section['kind'], names: readonly string[]): NamedSection[] {
  const bySlug = new Map<string, NamedSection>();
  for (const name of names) {
    const slug = sectionSlug(name);
    if (slug && !bySlug.has(slug)) bySlug.set(slug, { kind, slug, name });
  }
  return [...bySlug.values()];
}

export function pageCard(doc: PageDoc): PageCard {
  const text = preview(plainText(pageBlocks(doc)));
  if (isArticleDoc(doc))
    return {
      card_text: doc.meta_description ?? (text || null),
      category: doc.category,
      noindex: doc.noindex,
      canonical_url: doc.canonical_url,
      sections: sectionsOf('category', doc.category === null ? [] : [doc.category]),
    };
  return {
    card_text: doc.meta_description ?? (text || null),
    category: null,
    noindex: false,
    canonical_url: null,
    sections: sectionsOf('topic', doc.topics).slice(0, SERVICE_LIMITS.topicsListedMax),
  };
}
