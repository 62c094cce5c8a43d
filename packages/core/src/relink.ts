import type { PageDoc } from '@cm/contract';
import { PAGE_LINK } from './markup';

/** `copy` with every `[text](page:<id>)` to one of `targets` reduced to its `text`. */
export function unlinkCopy(copy: string, targets: ReadonlySet<string>): string {
  return copy.replace(PAGE_LINK, (marker, text: string, id: string) => (targets.has(id) ? text : marker));
}

/**
 * The page as readers and the editor see it while the pages in `suppressed` are not live: links to
 * them leave `copy` and the related ids. The published document itself is kept as it was, so putting
 * a link back is exact whatever else happened in between.
 */
export function withLinksSuppressed<T extends PageDoc>(doc: T, suppressed: readonly string[]): T {
  if (suppressed.length === 0) return doc;
  const targets = new Set(suppressed);
  const keep = (ids: string[]) => ids.filter((id) => !targets.has(id));
  const related = {
    related_article_ids: keep(doc.related_article_ids),
    related_question_ids: keep(doc.related_question_ids),
  };
  if ('copy' in doc && doc.copy !== null) return { ...doc, ...related, copy: unlinkCopy(doc.copy, targets) };
  return { ...doc, ...related };
}
