import { rankCheckPrice } from '@cm/providers';
import { given, type ToolAnswer, type ToolArgs } from './client';
import { fakeClock } from './clock';
import { startTestStack, type SiteClient, type TestStack } from './local';

/*
 * Rank tracking on the local stack, offline, for the rank tracking e2e files (two, so that the two test
 * workers share its minutes): SANDBOX_LIST_PRICES=1, so the checks cost DataForSEO's list price, marked
 * simulated, and the budget and the ledger can be checked.
 */

/**
 * Today, for the whole file: the clock is held at its noon (UTC) once the stack runs, so what the
 * service dates by its clock (track_rankings' first check, `since`) and the days the tests name agree,
 * however long the file runs, across midnight too.
 */
export const TODAY = new Date().toISOString().slice(0, 10);

/** The day `n` days after today. */
export const later = (n: number) =>
  new Date(Date.parse(`${TODAY}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** A check's list price at the default depth. */
export const PRICE = rankCheckPrice(20);

export type Landscape = ToolAnswer<'serp_landscape', ToolArgs<'serp_landscape'>>;

/**
 * The file's stack, started before its tests and stopped after: the clock held at today's noon, and the
 * monitoring the daily schedule plans counted, not run (monitoring.test.ts looks at it).
 */
export function useRankTrackingStack() {
  let stack: TestStack | undefined;
  let monitorRuns = 0;
  beforeAll(async () => {
    stack = await startTestStack({ env: { SANDBOX_LIST_PRICES: '1' } });
    fakeClock(Date.parse(`${TODAY}T12:00:00.000Z`));
    jest.spyOn(stack.stack.queues.monitor, 'send').mockImplementation(() => {
      monitorRuns++;
      return Promise.resolve();
    });
  }, 60_000);
  afterAll(() => {
    jest.useRealTimers();
    return stack?.stop();
  });
  const t = () => given(stack, 'the rank tracking stack');
  return {
    t,
    monitorRuns: () => monitorRuns,
    /** The schedule as EventBridge fires it on `day`, and everything it queues, to the end. */
    async scheduleOn(day: string) {
      await t().stack.runSchedule(new Date(`${day}T06:00:00.000Z`));
      await t().stack.drain();
    },
    /**
     * Stops every site's tracking so far (beneath the API, as cadence off does): a test that runs the
     * schedule over many days then pays for its own sites' checks alone, not again for every earlier
     * test's, as each schedule checks every site that tracks.
     */
    async untrackEarlierSites() {
      const { store } = t();
      const last = await store.sites.lastId();
      for (let siteId = 1; siteId <= last; siteId++)
        for (const scope of (await store.ranks.tracking(siteId)).scopes) await store.ranks.untrack(siteId, scope);
    },
  };
}

/** The site's ledger of rank checks: lines, those the shared cache answered (another site of the stack paid), and their (simulated) cost. */
export async function rankLedger(s: SiteClient) {
  const report = (
    await s.client.route('GET /v1/usage', {
      query: { from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' },
    })
  ).body;
  const lines = report.by_tool.filter((line: { tool: string }) => line.tool === 'rank_tracking');
  return {
    calls: lines.reduce((sum: number, line: { calls: number }) => sum + line.calls, 0),
    cached: lines.reduce((sum: number, line: { cached_calls?: number }) => sum + (line.cached_calls ?? 0), 0),
    cost: lines.reduce((sum: number, line: { cost_usd: number }) => sum + line.cost_usd, 0),
  };
}

/** serp_landscape's history of a scope, which it answers with `history_days`. */
export async function historyOf(s: SiteClient, input: ToolArgs<'serp_landscape'>) {
  return given((await s.client.tool('serp_landscape', input)).body.history, 'a history');
}

/** A topic with committed keywords (metrics pulled, so each has a row and a volume). */
export async function topicWith(s: SiteClient, name: string, seeds: string[]) {
  const topic = (await s.client.tool('db_insert', { table: 'cm_topics', row: { name } })).body.row;
  await s.client.tool('get_keywords', { topic_id: topic.id, seeds });
  return topic.id;
}
