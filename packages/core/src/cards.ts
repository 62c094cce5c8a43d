import type { PageCard, PageDoc } from '@cm/contract';
import { isArticleDoc, pageBlocks } from './pages';
import { plainText, preview } from './render';
import { sectionsOf, topicSections } from './sections';

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
    sections: topicSections(doc.topics),
  };
}
