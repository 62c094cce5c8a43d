import type { PageStatus, PageType } from '@cm/contract';

/* Every key shape of the single table. Nothing outside this package builds one. */

export type Key = { pk: string; sk: string };

export const siteKey = (siteId: number): Key => ({ pk: `SITE#${siteId}`, sk: 'META' });
export const apiKeyKey = (keyHash: string): Key => ({ pk: `KEY#${keyHash}`, sk: 'KEY' });
export const sequenceKey = (name: string): Key => ({ pk: 'SEQ', sk: name });

export const sitePartition = (siteId: number): string => `SITE#${siteId}`;
export const pageSk = (type: PageType, id: string): string => `PAGE#${type}#${id}`;
export const pageKey = (siteId: number, type: PageType, id: string): Key => ({
  pk: sitePartition(siteId),
  sk: pageSk(type, id),
});
/** Items that belong to a page sort right after it: one Query reads the page with its parts. */
export const pagePartsPrefix = (type: PageType, id: string): string => `${pageSk(type, id)}#`;
export const chunkSk = (type: PageType, id: string, version: string, index: number): string =>
  `${pagePartsPrefix(type, id)}CHUNK#${version}#${String(index).padStart(4, '0')}`;
export const chunkPrefix = (type: PageType, id: string, version: string): string =>
  `${pagePartsPrefix(type, id)}CHUNK#${version}#`;
export const answerSk = (type: PageType, id: string, createdAt: string, answerId: string): string =>
  `${pagePartsPrefix(type, id)}ANSWER#${createdAt}#${answerId}`;
export const answerPrefix = (type: PageType, id: string): string => `${pagePartsPrefix(type, id)}ANSWER#`;

export const pagesByUpdated = (siteId: number, type: PageType): string => `SITE#${siteId}#${type}`;
export const pagesByStatus = (siteId: number, type: PageType, status: PageStatus): string =>
  `SITE#${siteId}#${type}#${status}`;
export const updatedSortKey = (updatedAt: string, id: string): string => `${updatedAt}#${id}`;

/** Link index: one item per (target P, linking page Q), so "who links to P" is one Query. */
export const linksToPartition = (siteId: number, targetId: string): string => `SITE#${siteId}#LINKS_TO#${targetId}`;
export const linkEdgeKey = (siteId: number, targetId: string, sourceId: string): Key => ({
  pk: linksToPartition(siteId, targetId),
  sk: sourceId,
});
