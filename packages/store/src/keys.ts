import { createHash, randomBytes } from 'node:crypto';
import { PAGE_TYPES, type Device, type PageStatus, type PageType } from '@cm/contract';
import type { TableIndex } from './table';

/*
 * Every key shape of the single table, and each index's partitions. Nothing outside this package
 * builds one.
 */

export type Key = { pk: string; sk: string };

/**
 * A caller's text inside a key: as it is while it fits `maxBytes` of UTF-8, else `sha256:` and its
 * digest, so text of any length has one key of its own within DynamoDB's key limits (2048 bytes a
 * partition key, 1024 a sort key). Only texts no shorter key ever held are hashed: nothing stored moves.
 */
export const keyText = (text: string, maxBytes: number): string =>
  Buffer.byteLength(text, 'utf8') <= maxBytes
    ? text
    : `sha256:${createHash('sha256').update(text, 'utf8').digest('base64url')}`;

export const siteKey = (siteId: number): Key => ({ pk: `SITE#${siteId}`, sk: 'META' });
export const apiKeyKey = (keyHash: string): Key => ({ pk: `KEY#${keyHash}`, sk: 'KEY' });
export const sequenceKey = (name: string): Key => ({ pk: 'SEQ', sk: name });
/** An item that is never written: the deep health check reads it. */
export const healthKey: Key = { pk: 'HEALTH', sk: 'HEALTH' };

export const sitePartition = (siteId: number): string => `SITE#${siteId}`;

/*
 * A page's item and its parts (chunks, community answers, links), which sort right after it so one
 * Query reads a page whole, and the partitions of each index it is in (by updated_at, by status, and
 * while it is live, the index of live pages).
 */

export const pageSk = (type: PageType, id: string): string => `PAGE#${type}#${id}`;
export const pageKey = (siteId: number, type: PageType, id: string): Key => ({
  pk: sitePartition(siteId),
  sk: pageSk(type, id),
});
/** Items that belong to a page sort right after it: one Query reads the page with its parts. */
export const pagePartsPrefix = (type: PageType, id: string): string => `${pageSk(type, id)}#`;
/** The `index`th chunk of a page's document of `version` (a document too large for the page item). */
export const chunkKey = (siteId: number, type: PageType, id: string, version: string, index: number): Key => ({
  pk: sitePartition(siteId),
  sk: `${chunkPrefix(type, id, version)}${String(index).padStart(4, '0')}`,
});
export const chunkPrefix = (type: PageType, id: string, version: string): string =>
  `${pagePartsPrefix(type, id)}CHUNK#${version}#`;
export const answerPrefix = (type: PageType, id: string): string => `${pagePartsPrefix(type, id)}ANSWER#`;
/** A community answer beside its question, in the order answers were given. */
export const answerKey = (siteId: number, type: PageType, id: string, createdAt: string, answerId: string): Key => ({
  pk: sitePartition(siteId),
  sk: `${answerPrefix(type, id)}${createdAt}#${answerId}`,
});
/**
 * A page's link to `targetId`, a part of the page: it exists exactly while the page links there, and
 * says whether relink keeps the link from readers. The page's one Query reads its links with it.
 */
export const pageLinkPrefix = (type: PageType, id: string): string => `${pagePartsPrefix(type, id)}LINK#`;
export const pageLinkKey = (siteId: number, type: PageType, id: string, targetId: string): Key => ({
  pk: sitePartition(siteId),
  sk: `${pageLinkPrefix(type, id)}${targetId}`,
});

/**
 * A page's revisions (the versions its publishes replaced): one item each in a partition of the page's
 * own, by revision id (the replaced version, which sorts by when it was published), so a page's read
 * never reads them; a revision too large for one item has its chunks in a partition beside it.
 */
export const revisionPartition = (siteId: number, type: PageType, id: string): string =>
  `SITE#${siteId}#REVISION#${type}#${id}`;
export const revisionKey = (siteId: number, type: PageType, id: string, revisionId: string): Key => ({
  pk: revisionPartition(siteId, type, id),
  sk: revisionId,
});
export const revisionChunkPartition = (siteId: number, type: PageType, id: string): string =>
  `SITE#${siteId}#REVISION_CHUNK#${type}#${id}`;
export const revisionChunkKey = (
  siteId: number,
  type: PageType,
  id: string,
  revisionId: string,
  index: number,
): Key => ({
  pk: revisionChunkPartition(siteId, type, id),
  sk: `${revisionId}#${String(index).padStart(4, '0')}`,
});

export const pagesByUpdated = (siteId: number, type: PageType): string => `SITE#${siteId}#${type}`;
export const pagesByStatus = (siteId: number, type: PageType, status: PageStatus): string =>
  `SITE#${siteId}#${type}#${status}`;
export const updatedSortKey = (updatedAt: string, id: string): string => `${updatedAt}#${id}`;

/**
 * The index of live pages (gsi5): a page is in its site's partition for its type only while readers can
 * reach it, newest first publish first. `listing_sk` on the page item has its sort key, so a notify
 * that brings the page back can put it in without a read.
 */
export const livePagesPartition = (siteId: number, type: PageType): string => `SITE#${siteId}#LIVE#${type}`;
export const listedSortKey = (createdAt: string, id: string): string => `${createdAt}#${id}`;
/** The month sitemap a page is in (that of its first publish, `yyyy-mm`); `unplaced` for one from before months were kept. */
export const liveMonthPartition = (siteId: number, month: string): string => `SITE#${siteId}#MONTH#${month}`;

/** Where a Query of `index` continues after one of its items: the item's index keys and its table key. */
export const indexStart = (index: TableIndex, indexPk: string, indexSk: string, base: Key): Record<string, string> => ({
  [index.partitionKey]: indexPk,
  [index.sortKey]: indexSk,
  ...base,
});

/** A usage ledger line (usagePartition): its time, then a random part (lines of the same moment stay apart). */
export const usageLineSk = (at: string): string => `${at}#${randomBytes(6).toString('hex')}`;
/** The time a ledger line's sort key begins with. */
export const usageLineAt = (sk: string): string => sk.slice(0, sk.indexOf('#'));
export const usageLineKey = (siteId: number, sk: string): Key => ({ pk: usagePartition(siteId), sk });

/** A site's rank tracking settings, first in its tracking partition (trackingPartition). */
export const trackingSettingsKey = (siteId: number): Key => ({
  pk: trackingPartition(siteId),
  sk: TRACKING_SETTINGS_SK,
});

/**
 * A category's articles or a topic's questions: one item per (section, page), in a partition per
 * section, newest first publish first. It names the page; the page item says whether it is live.
 */
export const sectionPartition = (siteId: number, kind: string, slug: string): string =>
  `SITE#${siteId}#SECTION#${kind}#${slug}`;
export const sectionMemberKey = (
  siteId: number,
  section: { kind: string; slug: string },
  createdAt: string,
  type: PageType,
  id: string,
): Key => ({ pk: sectionPartition(siteId, section.kind, section.slug), sk: `${createdAt}#${type}#${id}` });

/**
 * A page that names a primary keyword: one item per (keyword, page), in the keyword's partition, so the
 * pages that hold a keyword are one Query. It names the page; the page item says whether it is live and
 * still holds the keyword. A keyword is at most 80 characters: the key always fits.
 */
export const primaryKeywordPartition = (siteId: number, keyword: string): string => `SITE#${siteId}#PRIMARY#${keyword}`;
export const primaryKeywordKey = (siteId: number, keyword: string, pageId: string): Key => ({
  pk: primaryKeywordPartition(siteId, keyword),
  sk: pageId,
});

/** The sections a site has had a page in, for its sitemap of listing pages: one item each, beside the site. */
export const SECTION_REGISTRY_PREFIX = 'SECTION#';
export const sectionRegistryKey = (siteId: number, section: { kind: string; slug: string }): Key => ({
  pk: sitePartition(siteId),
  sk: `${SECTION_REGISTRY_PREFIX}${section.kind}#${section.slug}`,
});

/** A domain a site's pages are served at, and the one site it is registered to. */
export const domainKey = (host: string): Key => ({ pk: `DOMAIN#${host}`, sk: 'DOMAIN' });

/** Link index: one item per (target P, linking page Q), so "who links to P" is one Query. */
export const linksToPartition = (siteId: number, targetId: string): string => `SITE#${siteId}#LINKS_TO#${targetId}`;
export const linkEdgeKey = (siteId: number, targetId: string, sourceId: string): Key => ({
  pk: linksToPartition(siteId, targetId),
  sk: sourceId,
});

/*
 * Pages on a schedule: one item per (page, change) in the partition of the UTC minute it is due in, so
 * the sweep reads only the minutes due (never a site's pages), and one cursor item for the deployment.
 */
export const scheduleMinutePartition = (minute: string): string => `SCHEDULE#${minute}`;
export const scheduledChangeKey = (
  minute: string,
  siteId: number,
  type: PageType,
  id: string,
  change: string,
): Key => ({
  pk: scheduleMinutePartition(minute),
  sk: `${siteId}#${type}#${id}#${change}`,
});
/** The last minute the page schedule sweep finished. */
export const scheduleCursorKey: Key = { pk: 'SCHEDULE#CURSOR', sk: 'CURSOR' };

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
/** Index partition of the rows whose `field` has `value` (a `db_select` may ask for a value of any length). */
export const rowIndexPartition = (siteId: number, table: string, field: string, value: unknown): string =>
  `${rowPartition(siteId, table)}#${field}=${keyText(JSON.stringify(value), 1024)}`;
/** The claim that makes a value unique among a table's rows: the id of the row that owns the value. */
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

/** The global concurrency counter of a kind of work: its count and its owners' leases, on one item. */
export const semaphoreKey = (name: string): Key => ({ pk: `SEM#${name}`, sk: 'META' });

/** A queued job (research), found by its id alone; it carries its site. */
export const jobKey = (jobId: string): Key => ({ pk: `JOB#${jobId}`, sk: 'JOB' });

/** Stored research of a site, by id. */
export const researchKey = (siteId: number, researchId: string): Key => ({
  pk: `SITE#${siteId}#RESEARCH`,
  sk: researchId,
});
/** Recall's inverted index: one item per (term, research), newest research first. A term is a word of any length. */
export const researchTermPartition = (siteId: number, term: string): string =>
  `SITE#${siteId}#RTERM#${keyText(term, 1024)}`;
/** A research under one of its terms, sorted by `order` (`created_at#research_id`). */
export const researchTermKey = (siteId: number, term: string, order: string): Key => ({
  pk: researchTermPartition(siteId, term),
  sk: order,
});
/** The latest research of a (mode, query), so a repeated query is answered from the store; a seed and question take 2000 characters each. */
export const researchQueryKey = (siteId: number, queryKey: string): Key => ({
  pk: `SITE#${siteId}#RQUERY`,
  sk: keyText(queryKey, 1024),
});

/*
 * The shared cache of public data: what a provider answers alike for every site (a keyword's metrics,
 * a SERP, a domain's backlink numbers, a research request's findings), one item per datum and UTC day.
 * Its key is the datum's identity alone: nothing a site owns is in it.
 */
export const sharedPartition = (kind: string, key: string): string => `SHARED#${kind}#${keyText(key, 1024)}`;
export const sharedKey = (kind: string, key: string, day: string): Key => ({
  pk: sharedPartition(kind, key),
  sk: `DAY#${day}`,
});
/** A scheduled run's claim of a datum's paid work on a day, so it is paid once across sites. */
export const sharedClaimKey = (kind: string, key: string, day: string): Key => ({
  pk: sharedPartition(kind, key),
  sk: `CLAIM#${day}`,
});

/** A site's Search Console connection: one item beside the site's. */
export const searchConsoleKey = (siteId: number): Key => ({ pk: sitePartition(siteId), sk: 'SEARCH_CONSOLE' });
/** A site's Search Console days (docs/api/search-console.md), one item a day. */
export const searchDayPartition = (siteId: number): string => `SITE#${siteId}#SEARCH`;
export const searchDayKey = (siteId: number, date: string): Key => ({
  pk: searchDayPartition(siteId),
  sk: `DAY#${date}`,
});

/**
 * A site's refresh queue: an entry per flagged page sorted by its clicks at risk, most first (the count
 * inverted and zero-padded), and a pointer per page naming its entry, so a re-flag replaces it.
 */
export const refreshQueuePartition = (siteId: number): string => `SITE#${siteId}#REFRESH`;
export const REFRESH_ENTRY_PREFIX = 'Q#';
const REFRESH_CLICKS_DIGITS = 12;
export const refreshEntrySk = (clicksAtRisk: number, type: PageType, id: string): string =>
  `${REFRESH_ENTRY_PREFIX}${String(10 ** REFRESH_CLICKS_DIGITS - 1 - clicksAtRisk).padStart(REFRESH_CLICKS_DIGITS, '0')}#${type}#${id}`;
/** Whether a sort key is a refresh entry's as refreshEntrySk builds it (a cursor's position is checked so). */
const REFRESH_ENTRY_SK = new RegExp(
  `^${REFRESH_ENTRY_PREFIX}\\d{${REFRESH_CLICKS_DIGITS}}#(?:${PAGE_TYPES.join('|')})#.+$`,
);
export const isRefreshEntrySk = (sk: string): boolean => REFRESH_ENTRY_SK.test(sk);
export const refreshPointerKey = (siteId: number, type: PageType, id: string): Key => ({
  pk: refreshQueuePartition(siteId),
  sk: `P#${type}#${id}`,
});

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
 * A keyword's dated rank rows on a device (one per check day, `yyyy-mm-dd`): a history is one Query of
 * a range of days. A row is first a check's claim, then its result. Desktop rows keep the partition
 * they had before devices were (no locale is `mobile`, so the two never meet).
 */
export const rankPartition = (siteId: number, locale: string, keyword: string, device: Device = 'desktop'): string =>
  `SITE#${siteId}#RANK#${device === 'desktop' ? '' : `${device}#`}${keywordUnique(locale, keyword)}`;
export const rankKey = (siteId: number, locale: string, keyword: string, day: string, device?: Device): Key => ({
  pk: rankPartition(siteId, locale, keyword, device),
  sk: day,
});
/** A site's rank tracking: its settings item, and one item per tracked scope (a topic or a page). */
export const trackingPartition = (siteId: number): string => `SITE#${siteId}#TRACK`;
export const TRACKING_SETTINGS_SK = 'SETTINGS';
export const trackedScopeKey = (siteId: number, type: string, id: number): Key => ({
  pk: trackingPartition(siteId),
  sk: `SCOPE#${type}#${rowSk(id)}`,
});

/** A site's spend limits (PUT /v1/budget). */
export const budgetKey = (siteId: number): Key => ({ pk: sitePartition(siteId), sk: 'BUDGET' });
/** A site's spend counters of one UTC month (`yyyy-mm`): the month's, and each of its days'. */
export const siteSpendKey = (siteId: number, month: string): Key => ({
  pk: sitePartition(siteId),
  sk: `SPEND#${month}`,
});
/**
 * The deployment's daily cap is counted on this many items a day, each allowed its share of the cap, so
 * no one item takes every paid call of every site.
 */
export const DEPLOYMENT_SPEND_SHARDS = 8;
/** One of the deployment's spend counters of one UTC day (`yyyy-mm-dd`): a partition of its own each. */
export const deploymentSpendKey = (day: string, shard: number): Key => ({ pk: `SPEND#${shard}`, sk: day });
/** The holds in flight on a spend counter: one item each, beside the counter's partition. */
export const spendHoldPartition = (counter: Key): string => `${counter.pk}#HOLDS#${counter.sk}`;
/** Hold expiries sort as text: 13 digits of epoch ms last until the year 2286. */
const spendHoldSk = (expiresAt: number, holdId: string): string =>
  `${String(Math.max(0, Math.floor(expiresAt))).padStart(13, '0')}#${holdId}`;
/** A hold's item on the counter item `counter`, by when it expires (epoch ms). */
export const spendHoldKey = (counter: Key, expiresAt: number, holdId: string): Key => ({
  pk: spendHoldPartition(counter),
  sk: spendHoldSk(expiresAt, holdId),
});
/** Sorts after every hold that expired by `at` (epoch ms): a Query below it finds the dead ones. */
export const spendHoldsExpiredBy = (at: number): string => spendHoldSk(at + 1, '');
/**
 * The mark an expired hold leaves when it is charged at its estimate, beside it: a letter sorts after
 * every digit, so the Query of expired holds never reads a mark.
 */
export const spendChargedKey = (hold: Key): Key => ({ pk: hold.pk, sk: `CHARGED#${hold.sk}` });

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
/** A paid provider's circuit breaker, shared by every function: failures in its window, and when it is open. */
export const breakerKey = (provider: string): Key => ({ pk: `BREAKER#${provider}`, sk: 'META' });
/**
 * The progress of one relink of `targetId` (asked for at `requestedAt`): how many batches its plan has
 * and which are done, so the one that finishes it clears the page's `relink_pending`.
 */
export const relinkRunKey = (siteId: number, targetId: string, requestedAt: string): Key => ({
  pk: `${sitePartition(siteId)}#RELINK#${targetId}`,
  sk: requestedAt,
});
/**
 * A research job waiting for a place under the global cap (analyze's, when the cap was full), oldest
 * first: admitted, in that order, when a place frees. One partition for the deployment, as the cap is.
 */
export const RESEARCH_WAITING_PARTITION = 'RESEARCH#WAITING';
export const researchWaitingKey = (since: string, jobId: string): Key => ({
  pk: RESEARCH_WAITING_PARTITION,
  sk: `${since}#${jobId}`,
});

/* The OAuth authorization server's state (docs/architecture/requests.md#oauth-sign-in), every id stored as its SHA-256. */

/** How the authorization server's ids are stored: their SHA-256 (for a token or a code, the token itself). */
export const oauthIdHash = (id: string): string => createHash('sha256').update(id, 'utf8').digest('hex');
/** One thing of the authorization server (a token, a code, a grant, a session, a registered client), by `model` and the hash of its id. */
export const oauthKey = (model: string, idHash: string): Key => oauthKeyOfPk(`OAUTH#${model}#${idHash}`);
/** The thing whose partition key an index item names (its `target_pk`). */
export const oauthKeyOfPk = (pk: string): Key => ({ pk, sk: 'OAUTH' });
/** A grant's tokens and codes, one index item each, so a grant's revocation finds them all with one Query. */
export const oauthGrantPartition = (grantHash: string): string => `OAUTH#GRANT#${grantHash}`;
export const oauthGrantIndexKey = (grantHash: string, model: string, idHash: string): Key => ({
  pk: oauthGrantPartition(grantHash),
  sk: `${model}#${idHash}`,
});
/** The wrong keys posted to the consent page from one address (by its hash) in one window of the limit's length. */
export const oauthKeyAttemptsKey = (addressHash: string, window: number): Key => ({
  pk: `OAUTH#KeyAttempts#${addressHash}#${window}`,
  sk: 'OAUTH',
});
/** Which session has a uid (sessions are found by it as well as by their id). */
export const oauthSessionUidKey = (uidHash: string): Key => ({ pk: `OAUTH#SessionUid#${uidHash}`, sk: 'OAUTH' });

/** A site's URL waiting to be sent to IndexNow: one partition per site (one Query reads them), the URL's hash as sort key (a URL may pass 1 KB). */
export const indexNowPartition = (siteId: number): string => `SITE#${siteId}#INDEXNOW`;
export const INDEXNOW_URL_PREFIX = 'URL#';
export const indexNowUrlKey = (siteId: number, url: string): Key => ({
  pk: indexNowPartition(siteId),
  sk: `${INDEXNOW_URL_PREFIX}${createHash('sha256').update(url).digest('base64url')}`,
});
/** Beside them, the mark of the site's message on the indexnow queue, while one is on its way. */
export const indexNowMessageKey = (siteId: number): Key => ({ pk: indexNowPartition(siteId), sk: 'MESSAGE' });
