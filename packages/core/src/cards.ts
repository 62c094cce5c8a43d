import { SERVICE_LIMITS, type NamedSection, type PageCard, type PageDoc, type Section } from '@cm/contract';
import { isArticleDoc, pageBlocks } from './pages';
import { plainText, preview } from './render';
import { sectionSlug } from './site-urls';

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
