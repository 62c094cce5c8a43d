import { pageTypeOfId, pageUrl, type RenderOptions } from '@cm/core';
import type { LinkTarget, Store } from '@cm/store';

/** The pages with these ids (ids of no page of ours left out), read in one batch: whether each is live, its slug and title. */
export async function readLinkTargets(
  pageListings: Store['pageListings'],
  siteId: number,
  ids: Iterable<string>,
): Promise<Map<string, LinkTarget>> {
  const linked = [...new Set(ids)].flatMap((id) => {
    const type = pageTypeOfId(id);
    return type ? [{ id, type }] : [];
  });
  return linked.length > 0 ? pageListings.linkTargets(siteId, linked) : new Map<string, LinkTarget>();
}

/** A rendered page's links: a linked page at its URL while readers can reach it, else none (relink). */
export const liveLinkTarget =
  (root: string, targets: ReadonlyMap<string, LinkTarget>): RenderOptions['linkTarget'] =>
  (id) => {
    const target = targets.get(id);
    return target?.live ? { url: pageUrl(root, target.type, target.slug), title: target.title } : null;
  };
