import { SERVICE_LIMITS, type NamedSection, type Section } from '@cm/contract';
import { sectionSlug } from './site-urls';

/*
 * A page's sections, as its publish files it under them and its page links to them: an article's
 * category page, a question's topic pages.
 */

/** Sections by name: one per slug (the first name sent for it), none for a name with no letter or digit. */
export function sectionsOf(kind: Section['kind'], names: readonly string[]): NamedSection[] {
  const bySlug = new Map<string, NamedSection>();
  for (const name of names) {
    const slug = sectionSlug(name);
    if (slug && !bySlug.has(slug)) bySlug.set(slug, { kind, slug, name });
  }
  return [...bySlug.values()];
}

/** A question's topics whose pages list it: the first topicsListedMax (its publish warns of the rest). */
export const topicSections = (topics: readonly string[]): NamedSection[] =>
  sectionsOf('topic', topics).slice(0, SERVICE_LIMITS.topicsListedMax);
