import * as z from 'zod/mini';
import { Meter } from '@cm/providers';
import { createDocumentClient, createStore, sharedId, type SharedDatum, type Store } from '@cm/store';
import { startTestStack, TEST_REQUEST_TIMEOUT_MS, type TestStack } from '../helpers/local';

/* The shared cache of public data (one item per datum and day, for every site) and the ledger's lines it answered. */

let t: TestStack;
let store: Store;
beforeAll(async () => {
  t = await startTestStack();
  store = createStore(
    createDocumentClient({ endpoint: t.stack.dynamo.endpoint, requestTimeoutMs: TEST_REQUEST_TIMEOUT_MS }),
    t.stack.tableName,
  );
}, 60_000);
afterAll(() => t.stop());

const Volume = z.object({ volume: z.number() });
const metrics = (key: string, day: string): SharedDatum => ({ kind: 'keyword-metrics', key, day });

it("keeps a datum per day, answers it to any reader, and refuses a stored value its reader's schema does not decode", async () => {
  const day = '2026-11-29';
  await store.shared.put(metrics('en-US#running shoes', day), {
    value: { volume: 1200 },
    fetched_at: `${day}T08:00:00.000Z`,
    data_source: 'sandbox',
  });
  await store.shared.putMany([
    {
      datum: metrics('en-US#trail shoes', day),
      shared: { value: { volume: 300 }, fetched_at: `${day}T08:00:01.000Z`, data_source: 'sandbox' },
    },
  ]);
  expect(await store.shared.get(metrics('en-US#running shoes', day), Volume)).toEqual({
    value: { volume: 1200 },
    fetched_at: `${day}T08:00:00.000Z`,
    data_source: 'sandbox',
  });
  // Another day, and another kind with the same key, are other data.
  expect(await store.shared.get(metrics('en-US#running shoes', '2026-11-30'), Volume)).toBeNull();
  expect(await store.shared.get({ kind: 'serp', key: 'en-US#running shoes', day }, Volume)).toBeNull();

  const running = metrics('en-US#running shoes', day);
  const trail = metrics('en-US#trail shoes', day);
  const found = await store.shared.getMany([running, trail, metrics('en-US#no such', day), running], Volume);
  expect([...found.keys()].sort()).toEqual([sharedId(running), sharedId(trail)].sort());
  expect(found.get(sharedId(trail))?.value).toEqual({ volume: 300 });

  await expect(store.shared.get(metrics('en-US#running shoes', day), z.object({ cpc: z.number() }))).rejects.toThrow(
    /shared datum/,
  );
});

it('claims a datum-day for one run: another run is refused until the claim is given back', async () => {
  const datum: SharedDatum = { kind: 'backlink-numbers', key: 'rival.example', day: '2026-11-29' };
  const now = new Date('2026-11-29T06:00:00Z');
  expect(await store.shared.claim(datum, 'run-a', now)).toBe(true);
  expect(await store.shared.claim(datum, 'run-b', now)).toBe(false);
  // Only its owner gives it back.
  await store.shared.giveBack(datum, 'run-b', now);
  expect(await store.shared.claim(datum, 'run-c', now)).toBe(false);
  await store.shared.giveBack(datum, 'run-a', now);
  expect(await store.shared.claim(datum, 'run-c', now)).toBe(true);
  // The claim is not the datum: no answer is stored by claiming.
  expect(await store.shared.get(datum, Volume)).toBeNull();
});

it("counts the cache's answers in the ledger as calls at $0, apart from the provider's", async () => {
  const meter = new Meter();
  meter.record({ provider: 'dataforseo', endpoint: 'keywords_data/google_ads/search_volume/live', cost_usd: 0.075 });
  meter.recordCached({ provider: 'dataforseo', endpoint: 'keywords_data/google_ads/search_volume/live' });
  meter.recordCached({ provider: 'dataforseo', endpoint: 'keywords_data/google_ads/search_volume/live' });
  expect(meter.costUsd).toBe(0.075);
  const siteId = t.siteId + 7000;
  const at = '2026-11-29T09:00:00.000Z';
  await store.usage.record(siteId, 'get_keywords', meter.calls, at);
  const report = await store.usage.report(siteId, '2026-11-29T00:00:00Z', '2026-11-30T00:00:00Z', { byDay: true });
  expect(report).toMatchObject({ calls: 3, cost_usd: 0.075 });
  expect(report.by_tool).toEqual([
    { tool: 'get_keywords', provider: 'dataforseo', calls: 3, cost_usd: 0.075, cached_calls: 2 },
  ]);
  expect(report.by_day).toEqual([
    { day: '2026-11-29', tool: 'get_keywords', provider: 'dataforseo', calls: 3, cost_usd: 0.075, cached_calls: 2 },
  ]);
});
