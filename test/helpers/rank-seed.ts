import type { Device, TrackedScopeType } from '@cm/contract';
import { batchGet, batchWrite } from '../../packages/store/src/batch';
import {
  rankKey,
  rowIndexPartition,
  rowKey,
  rowSk,
  sequenceKey,
  siteKey,
  trackedScopeKey,
} from '../../packages/store/src/keys';
import { checkedRow } from '../../packages/store/src/rows.decoder';
import type { TestStack } from './local';
import { keywordFields } from './rows';

/** A seeded site that tracks one topic of `keywords` keywords daily. */
export interface RankSite {
  siteId: number;
  domain: string;
  keywords: string[];
}

/** The keywords site `siteId` tracks: by default its own, which no other site tracks. */
export type KeywordsOf = (siteId: number, keywords: number) => string[];
const ownKeywords: KeywordsOf = (siteId, keywords) =>
  Array.from({ length: keywords }, (_v, i) => `keyword ${i + 1} of ${siteId}`);

export const rankSite = (siteId: number, keywords: number, keywordsOf: KeywordsOf = ownKeywords): RankSite => ({
  siteId,
  domain: `site-${siteId}.example.com`,
  keywords: keywordsOf(siteId, keywords),
});

/**
 * Sites 1 to `count` (the stack's demo site 1 is written over), each tracking topic 1 of `keywords`
 * keywords (`keywordsOf` names them; by default no two sites share one) daily since
 * `since`: its site item (marked as tracking), its tracked scope, the topic, its keywords' rows and the
 * topic's links to them with their index attributes, written straight into the table in BatchWriteItems
 * of 25, and the site sequence set to `count`. What a site's rank checks read, and nothing else (no
 * keys, no uniqueness items).
 */
export async function seedRankSites(
  t: TestStack,
  count: number,
  keywords: number,
  since: string,
  keywordsOf?: KeywordsOf,
): Promise<RankSite[]> {
  const now = `${since}T00:00:00.000Z`;
  const times = { created_at: now, updated_at: now };
  const sites = Array.from({ length: count }, (_v, i) => rankSite(i + 1, keywords, keywordsOf));
  const items = sites.flatMap(({ siteId, domain, keywords: words }) => [
    {
      ...siteKey(siteId),
      site_id: siteId,
      name: `Site ${siteId}`,
      domain,
      locale: 'US/en',
      created_at: now,
      rank_tracking: true,
    },
    {
      ...trackedScopeKey(siteId, 'topic', 1),
      type: 'topic',
      id: 1,
      cadence: 'daily',
      max_keywords: 50,
      since,
      ...times,
    },
    {
      ...rowKey(siteId, 'cm_topics', 1),
      table: 'cm_topics',
      row: checkedRow('cm_topics', { id: 1, name: 'Topic', ...times }),
    },
    ...words.flatMap((keyword, i) => [
      {
        ...rowKey(siteId, 'cm_keywords', i + 1),
        table: 'cm_keywords',
        row: checkedRow('cm_keywords', {
          id: i + 1,
          ...keywordFields(keyword, { volume: 100 * (i + 1), data_source: 'sandbox' }),
          ...times,
        }),
      },
      {
        ...rowKey(siteId, 'cm_topic_keywords', i + 1),
        table: 'cm_topic_keywords',
        row: checkedRow('cm_topic_keywords', { id: i + 1, topic_id: 1, keyword_id: i + 1, ...times }),
        gsi3pk: rowIndexPartition(siteId, 'cm_topic_keywords', 'topic_id', 1),
        gsi3sk: rowSk(i + 1),
        gsi4pk: rowIndexPartition(siteId, 'cm_topic_keywords', 'keyword_id', i + 1),
        gsi4sk: rowSk(i + 1),
      },
    ]),
  ]);
  await batchWrite(t.db, t.stack.tableName, [
    { PutRequest: { Item: { ...sequenceKey('site'), value: count } } },
    ...items.map((Item) => ({ PutRequest: { Item } })),
  ]);
  return sites;
}

/** How many of the seeded sites' keywords have a checked row of `day`: BatchGetItems of 100 keys. */
export async function rankRowsOf(t: TestStack, sites: readonly RankSite[], day: string): Promise<number> {
  const keys = sites.flatMap(({ siteId, keywords }) =>
    keywords.map((keyword) => rankKey(siteId, 'US/en', keyword, day)),
  );
  const found = await batchGet(t.db, t.stack.tableName, keys, {
    expression: '#state',
    names: { '#state': 'state' },
  });
  return found.filter((item) => item.state === 'checked').length;
}

/**
 * A topic of the site tracked daily (on desktop) since `days - 1` days ago, and the scopes of `also` on
 * their devices, and the daily schedule run as of each of those days (every check through the sandbox's
 * standard queue): `days` days of rank history, today's last.
 */
export async function trackTopicFor(
  t: TestStack,
  siteId: number,
  topicId: number,
  days: number,
  also: readonly { type: TrackedScopeType; id: number; device: Device }[] = [],
): Promise<void> {
  const dayMs = 86_400_000;
  const first = Date.now() - (days - 1) * dayMs;
  await t.store.ranks.track(
    siteId,
    { type: 'topic', id: topicId },
    { cadence: 'daily', max_keywords: 50 },
    new Date(first),
  );
  for (const { device, ...scope } of also)
    await t.store.ranks.track(siteId, scope, { cadence: 'daily', max_keywords: null, device }, new Date(first));
  await t.store.sites.markRankTracking(siteId);
  for (let day = 0; day < days; day++) {
    await t.stack.runSchedule(new Date(first + day * dayMs));
    await t.stack.drain();
  }
}
