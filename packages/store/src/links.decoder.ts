import * as z from 'zod/mini';
import { PAGE_TYPES } from '@cm/contract';
import { decodeItem } from './decode';

/* The link index's items: an edge says which page links to a target (the page's id is the sort key). */

const LinkEdgeItem = z.looseObject({ sk: z.string(), source_type: z.enum(PAGE_TYPES) });
/** A page item read for its outgoing links. */
const PageLinksItem = z.looseObject({ links: z.optional(z.array(z.string())) });

type Item = Record<string, unknown>;

export const decodeLinkEdge = (item: Item) => decodeItem('link edge', LinkEdgeItem, item);
export const decodePageLinks = (item: Item, key: Item) => decodeItem('page', PageLinksItem, item, key);
