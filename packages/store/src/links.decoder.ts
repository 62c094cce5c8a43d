import * as z from 'zod/mini';
import { PAGE_TYPES } from '@cm/contract';
import { decodeItem } from './decode';

/* The link index's items: an edge says which page links to a target (the page's id is the sort key); a link item, beside its page, that the page links to a target. */

const LinkEdgeItem = z.looseObject({ sk: z.string(), source_type: z.enum(PAGE_TYPES) });
const PageLinkItem = z.looseObject({
  target: z.string(),
  suppressed_since: z.optional(z.string()),
  relinked_at: z.optional(z.string()),
});
/** A page item from before link items, read for the outgoing links it held. */
const LegacyPageLinksItem = z.looseObject({ links: z.optional(z.array(z.string())) });

type Item = Record<string, unknown>;

export const decodeLinkEdge = (item: Item) => decodeItem('link edge', LinkEdgeItem, item);
export const decodeLegacyPageLinks = (item: Item, key: Item) => decodeItem('page', LegacyPageLinksItem, item, key);

export function decodePageLink(item: Item) {
  const link = decodeItem('page link', PageLinkItem, item);
  return {
    target: link.target,
    suppressed_since: link.suppressed_since ?? null,
    relinked_at: link.relinked_at ?? null,
  };
}
