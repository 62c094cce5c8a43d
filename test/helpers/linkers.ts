import { articleDoc, contentHash, pageCard, pageId } from '@cm/core';
import type { TestStack } from './local';

/**
 * Stores an article `slug` that links to `target` (in its copy, and among its related articles when
 * `related`) as a publish would, without the API: the page, then its link's edge and link item. Its id.
 */
export async function storeLinker(
  t: TestStack,
  linker: { slug: string; target: string; now: string; related?: boolean },
): Promise<string> {
  const { slug, target, now } = linker;
  const doc = articleDoc(
    {
      slug,
      title: slug,
      body: [],
      copy: `See [it](page:${target}).`,
      ...(linker.related ? { related_article_ids: [target] } : {}),
    },
    now,
  );
  const id = pageId(t.siteId, 'article', slug);
  await t.store.pages.put({
    siteId: t.siteId,
    type: 'article',
    id,
    doc,
    links: [target],
    card: pageCard(doc),
    contentHash: contentHash(doc),
    now,
  });
  await t.store.links.reindex(t.siteId, { id, type: 'article' }, [], [target]);
  return id;
}
