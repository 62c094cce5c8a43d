import { ctrAt, daysEndingOn } from '@cm/core';
import { rankCheckPrice } from '@cm/providers';
import { article, siteClient, startTestStack, type SiteClient, type TestStack } from '../helpers/local';

/*
 * Rank tracking on the local stack, offline: track_rankings turns a topic's or a page's tracking on,
 * the daily schedule (run as of each of 30 days) checks each tracked keyword once a day through the
 * sandbox's standard queue, and serp_landscape history_days reads the positions, share of voice,
 * winners and losers and the published page's own positions back. SANDBOX_LIST_PRICES=1: the checks
 * cost DataForSEO's list price, marked simulated, so the budget and the ledger can be checked.
 */

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_LIST_PRICES: '1' } });
}, 60_000);
afterAll(() => t.stop());

const TODAY = new Date().toISOString().slice(0, 10);
const PRICE = rankCheckPrice(20);
/** The schedule as EventBridge fires it on `day`, and everything it queues, to the end. */
async function scheduleOn(day: string) {
  await t.stack.runSchedule(new Date(`${day}T06:00:00.000Z`));
  await t.stack.drain();
}

/** The site's ledger of rank checks: lines and their (simulated) cost. */
async function rankLedger(s: SiteClient) {
  const report = (await s.call('GET', '/v1/usage?from=2000-01-01T00:00:00.000Z')).body;
  const lines = report.by_tool.filter((line: { tool: string }) => line.tool === 'rank_tracking');
  return {
    calls: lines.reduce((sum: number, line: { calls: number }) => sum + line.calls, 0),
    cost: lines.reduce((sum: number, line: { cost_usd: number }) => sum + line.cost_usd, 0),
    simulated: report.simulated_cost_usd ?? 0,
  };
}

/** A topic with committed keywords (metrics pulled, so each has a row and a volume). */
async function topicWith(s: SiteClient, name: string, seeds: string[]) {
  const topic = (await s.tool('db_insert', { table: 'cm_topics', row: { name } })).body.row;
  const pulled = await s.tool('get_keywords', { topic_id: topic.id, seeds });
  expect(pulled.status).toBe(200);
  return topic.id as number;
}

describe('track_rankings', () => {
  it('refuses what it cannot do: cadence without a scope, both scopes, max_keywords on a page, a scope without cadence, an odd depth; a missing topic is 404', async () => {
    const s = await siteClient(t, 'refusals', { domain: 'refusals.example.com', locale: 'US/en' });
    for (const body of [
      { cadence: 'daily' },
      { topic_id: 1, page_id: 1, cadence: 'daily' },
      { page_id: 1, cadence: 'daily', max_keywords: 5 },
      { topic_id: 1 },
      { depth: 25 },
      { depth: 110 },
      { topic_id: 1, cadence: 'hourly' },
      { topic_id: 1, cadence: 'daily', max_keywords: 501 },
    ])
      expect((await s.tool('track_rankings', body)).status).toBe(400);
    expect(await s.tool('track_rankings', { topic_id: 999, cadence: 'daily' })).toMatchObject({
      status: 404,
      body: { code: 'not_found', table: 'cm_topics', id: 999 },
    });
    expect((await s.tool('track_rankings', {})).body).toMatchObject({ tracking: [], depth: 20, first_check: null });
  });

  it("tracks a topic's committed keywords with rows, never its ideas, answers their cost a month at list prices and checks them at once", async () => {
    const s = await siteClient(t, 'first', { domain: 'first.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Trail running', ['trail running shoes', 'trail shoes', 'hiking boots']);
    // An idea linked to the topic is never tracked.
    const idea = (await s.tool('db_insert', { table: 'cm_keywords', row: { keyword: 'trail idea', is_idea: true } }))
      .body.row;
    await s.tool('db_insert', { table: 'cm_topic_keywords', row: { topic_id: topicId, keyword_id: idea.id } });

    const tracked = await s.tool('track_rankings', { topic_id: topicId, cadence: 'daily' });
    expect(tracked.status).toBe(200);
    const keywords = tracked.body.tracking[0].keywords;
    expect(keywords.sort()).toEqual(['hiking boots', 'trail running shoes', 'trail shoes']);
    expect(tracked.body).toMatchObject({
      tracking: [
        {
          scope: { type: 'topic', id: topicId, name: 'Trail running' },
          cadence: 'daily',
          max_keywords: 50,
          since: TODAY,
          checks_per_month: 90,
          usd_per_month: Math.round(90 * PRICE * 1e6) / 1e6,
        },
      ],
      depth: 20,
      total: { keywords: 3, checks_per_month: 90 },
      first_check: { queued: 3, deferred: 0 },
    });
    await t.stack.drain();
    const history = (await s.tool('serp_landscape', { topic_id: topicId, history_days: 1 })).body.history;
    expect(history.coverage).toEqual({ days: 1, days_with_data: 1, keywords_with_data: 3 });
    expect(await rankLedger(s)).toMatchObject({ calls: 3 });
  });
});
