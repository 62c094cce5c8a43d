import type { BacklinkDetail, BacklinkNumbers, BacklinkTrendPoint } from '@cm/contract';
import { SandboxBacklinkData, type Meter } from '@cm/providers';
import { batchGet, batchWrite } from '../../packages/store/src/batch';
import { backlinkSnapshotKey, rowKey, sequenceKey, siteKey } from '../../packages/store/src/keys';
import { checkedRow } from '../../packages/store/src/rows.decoder';
import type { TestStack } from './local';

/*
 * Monitoring at no cost in time: for tests of many monitoring runs, where the sandbox's own data would
 * only take the machine. Each records its call (free) as the sandbox does.
 */
const EMPTY_SUMMARY = {
  backlinks: 0,
  referring_domains: 0,
  rank: 0,
  spam_score: 0,
  broken_links: 0,
  dofollow_share: 0,
};

export function freeNumbers(domains: readonly string[], meter: Meter): Promise<Map<string, BacklinkNumbers>> {
  meter.record({ provider: 'sandbox', endpoint: 'backlinks_numbers', cost_usd: 0 });
  const empty = { new_backlinks: 0, lost_backlinks: 0, new_referring_domains: 0, lost_referring_domains: 0 };
  return Promise.resolve(new Map(domains.map((domain) => [domain, { summary: EMPTY_SUMMARY, ...empty }])));
}

/** A trend of one month, so the next day's run extends it rather than taking it again. */
export function freeTrend(_domain: string, meter: Meter): Promise<BacklinkTrendPoint[]> {
  meter.record({ provider: 'sandbox', endpoint: 'backlinks_trend', cost_usd: 0 });
  const month = new Date().toISOString().slice(0, 7);
  return Promise.resolve([{ month, backlinks: 0, referring_domains: 0, new_referring_domains: 0, rank: 0 }]);
}

export function freeDetail(_domain: string, _backlinks: number, meter: Meter): Promise<BacklinkDetail> {
  meter.record({ provider: 'sandbox', endpoint: 'backlinks_detail', cost_usd: 0 });
  return Promise.resolve({ anchors: [], top_linking_pages: [], referring_domains: [] });
}

/**
 * Every backlink call of the sandbox answered as above, a gap with nothing in it: for a test of what
 * monitoring runs and what it pays, not of what it finds. Spies on the sandbox's prototype, which
 * `jest.restoreAllMocks()` puts back (a method spied already keeps its spy, now answering this).
 */
export function freeBacklinkData(): void {
  const sandbox = SandboxBacklinkData.prototype;
  jest.spyOn(sandbox, 'numbers').mockImplementation(freeNumbers);
  jest.spyOn(sandbox, 'trend').mockImplementation(freeTrend);
  jest.spyOn(sandbox, 'detail').mockImplementation(freeDetail);
  jest.spyOn(sandbox, 'linkGap').mockImplementation((_site, _competitors, _limit, meter) => {
    meter.record({ provider: 'sandbox', endpoint: 'backlinks_link_gap', cost_usd: 0 });
    return Promise.resolve([]);
  });
}

/** The domains a seeded site's monitoring run tracks: its own, then its competitors'. */
export interface SeededSite {
  siteId: number;
  domain: string;
  rivals: string[];
}

/** The competitors of site `siteId`: by default its own, which no other site monitors. */
export type RivalsOf = (siteId: number, competitors: number) => string[];
const ownRivals: RivalsOf = (siteId, competitors) =>
  Array.from({ length: competitors }, (_v, i) => `rival-${siteId}-${i + 1}.example.net`);

/** The seeded site `siteId` with `competitors` competitors: the same names every time, so a test finds them again. */
export const seededSite = (siteId: number, competitors: number, rivalsOf: RivalsOf = ownRivals): SeededSite => ({
  siteId,
  domain: `site-${siteId}.example.com`,
  rivals: rivalsOf(siteId, competitors),
});

/**
 * Sites 1 to `count` (the stack's demo site 1 is written over; from `first` on, after the sites a test
 * made before), each with `competitors` active
 * cm_competitors rows (`rivalsOf` names them; by default no two sites share one), written straight into the table: BatchWriteItems of 25, a few in flight, and the
 * site sequence set to `count`. It writes what the monitoring schedule and a site's run read (the site
 * items, the sequence, the competitor rows) and nothing they do not: no API keys, no uniqueness items
 * of the rows, no places under the competitor cap. Through the row inserts' conditional puts, 10,000
 * sites of 10 take over ten minutes; this takes well under one.
 */
export async function seedMonitoredSites(
  t: TestStack,
  count: number,
  competitors: number,
  rivalsOf?: RivalsOf,
  first = 1,
): Promise<SeededSite[]> {
  const { db } = t;
  const now = new Date().toISOString();
  const sites = Array.from({ length: count }, (_v, i) => seededSite(first + i, competitors, rivalsOf));
  const items = sites.flatMap(({ siteId, domain, rivals }) => [
    { ...siteKey(siteId), site_id: siteId, name: `Site ${siteId}`, domain, locale: 'US/en', created_at: now },
    ...rivals.map((rival, i) => ({
      ...rowKey(siteId, 'cm_competitors', i + 1),
      table: 'cm_competitors',
      row: checkedRow('cm_competitors', {
        id: i + 1,
        domain: rival,
        active: true,
        added_at: now,
        created_at: now,
        updated_at: now,
      }),
    })),
  ]);
  await batchWrite(db, t.stack.tableName, [
    { PutRequest: { Item: { ...sequenceKey('site'), value: first + count - 1 } } },
    ...items.map((Item) => ({ PutRequest: { Item } })),
  ]);
  return sites;
}

/** How many of the seeded sites' domains have a snapshot of `day`: BatchGetItems of 100 keys, a few in flight. */
export async function snapshotsOf(t: TestStack, sites: readonly SeededSite[], day: string): Promise<number> {
  const { db } = t;
  const keys = sites.flatMap(({ siteId, domain, rivals }) =>
    [domain, ...rivals].map((tracked) => backlinkSnapshotKey(siteId, tracked, day)),
  );
  const found = await batchGet(db, t.stack.tableName, keys, { expression: '#pk', names: { '#pk': 'pk' } });
  return found.length;
}
