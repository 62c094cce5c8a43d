import type { PageStatus, PageType } from '@cm/contract';

/* Every key shape of the single table. Nothing outside this package builds one. */

export type Key = { pk: string; sk: string };

export const siteKey = (siteId: number): Key => ({ pk: `SITE#${siteId}`, sk: 'META' });
export const apiKeyKey = (keyHash: string): Key => ({ pk: `KEY#${keyHash}`, sk: 'KEY' });
export const sequenceKey = (name: string): Key => ({ pk: 'SEQ', sk: name });
/** An item that is never written: the deep health check reads it. */
export const healthKey: Key = { pk: 'HEALTH', sk: 'HEALTH' };

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

/* Research data. */

/** A site's id sequence for one cm_* table. */
export const tableSequenceKey = (siteId: number, table: string): Key => ({
  pk: sitePartition(siteId),
  sk: `SEQ#${table}`,
});

/** Rows of a cm_* table: one partition per site and table, sorted by id. */
export const rowPartition = (siteId: number, table: string): string => `SITE#${siteId}#ROWS#${table}`;
export const rowSk = (id: number): string => String(id).padStart(12, '0');
export const rowKey = (siteId: number, table: string, id: number): Key => ({
  pk: rowPartition(siteId, table),
  sk: rowSk(id),
});
/** Index partition of the rows whose `field` has `value`. */
export const rowIndexPartition = (siteId: number, table: string, field: string, value: unknown): string =>
  `${rowPartition(siteId, table)}#${field}=${JSON.stringify(value)}`;
/** The item that makes a value unique among a table's rows; it holds the id of the row that has it. */
export const uniqueKey = (siteId: number, table: string, value: string): Key => ({
  pk: `SITE#${siteId}#UNIQUE#${table}`,
  sk: value,
});

/**
 * A keyword's identity: a keyword (normalized) is unique per locale among cm_keywords rows, and has
 * one stored SERP row per locale. Also the key callers use to match keywords to their rows.
 */
export const keywordUnique = (locale: string, keyword: string): string => `${locale}#${keyword}`;

/** The stored SERP competition row of a keyword in a locale. */
export const serpKey = (siteId: number, locale: string, keyword: string): Key => ({
  pk: `SITE#${siteId}#SERP`,
  sk: keywordUnique(locale, keyword),
});

/** Usage ledger: one item per paid provider call, by time. */
export const usagePartition = (siteId: number): string => `SITE#${siteId}#USAGE`;

/** A daily quota's counter, e.g. serp_keyword_refresh's. */
export const quotaKey = (siteId: number, name: string, day: string): Key => ({
  pk: sitePartition(siteId),
  sk: `QUOTA#${name}#${day}`,
});

/** The global concurrency counter of a kind of work: its count and its holders' leases, on one item. */
export const semaphoreKey = (name: string): Key => ({ pk: `SEM#${name}`, sk: 'META' });

/** A queued job (research), found by its id alone; it carries its site. */
export const jobKey = (jobId: string): Key => ({ pk: `JOB#${jobId}`, sk: 'JOB' });

/** Stored research of a site, by id. */
export const researchKey = (siteId: number, researchId: string): Key => ({
  pk: `SITE#${siteId}#RESEARCH`,
  sk: researchId,
});
/** Recall's inverted index: one item per (term, research), newest research first. */
export const researchTermPartition = (siteId: number, term: string): string => `SITE#${siteId}#RTERM#${term}`;
/** The latest research of a (mode, query), so a repeated query is answered from the store. */
export const researchQueryKey = (siteId: number, queryKey: string): Key => ({
  pk: `SITE#${siteId}#RQUERY`,
  sk: queryKey,
});

/** Backlink snapshots of one domain tracked by a site, one per day, newest last. */
export const backlinkPartition = (siteId: number, domain: string): string => `SITE#${siteId}#BL#${domain}`;
export const backlinkSnapshotKey = (siteId: number, domain: string, day: string): Key => ({
  pk: backlinkPartition(siteId, domain),
  sk: `SNAP#${day}`,
});
/** A monitoring run's claim of a domain's paid work (`work`: its day, and for the site's own domain what its gap is against); it sorts before the snapshots. */
export const monitorClaimKey = (siteId: number, domain: string, work: string): Key => ({
  pk: backlinkPartition(siteId, domain),
  sk: `CLAIM#${work}`,
});

/**
 * The page attribute that says since when relink has kept the links to `targetId` from readers: one
 * top-level attribute per target, so a suppression is one conditional write with no map to create first.
 */
const SUPPRESSED_SINCE_PREFIX = 'suppressed_since#';
export const suppressedSinceAttribute = (targetId: string): string => `${SUPPRESSED_SINCE_PREFIX}${targetId}`;

/** A site's spend limits (PUT /v1/budget). */
export const budgetKey = (siteId: number): Key => ({ pk: sitePartition(siteId), sk: 'BUDGET' });
/** A site's spend counters of one UTC month (`yyyy-mm`): the month's, and each of its days'. */
export const siteSpendKey = (siteId: number, month: string): Key => ({
  pk: sitePartition(siteId),
  sk: `SPEND#${month}`,
});
/** The deployment's spend counter of one UTC day (`yyyy-mm-dd`), for its daily cap. */
export const deploymentSpendKey = (day: string): Key => ({ pk: 'SPEND', sk: day });

/** A large MCP tool result kept for its pages and its resource: one partition per result, its parts in order. */
export const resultPartition = (siteId: number, resultId: string): string => `SITE#${siteId}#RESULT#${resultId}`;
export const resultPartKey = (siteId: number, resultId: string, part: number): Key => ({
  pk: resultPartition(siteId, resultId),
  sk: String(part).padStart(4, '0'),
});
/** A one-use approval token of a paid call (docs/api.md#estimates-and-approval), by the SHA-256 of the token. */
export const confirmKey = (siteId: number, tokenHash: string): Key => ({
  pk: `SITE#${siteId}#CONFIRM`,
  sk: tokenHash,
});
/** A question the MCP server asked a client by elicitation (an approval), by its random id. */
export const elicitationKey = (siteId: number, id: string): Key => ({
  pk: `SITE#${siteId}#ELICIT`,
  sk: id,
});
