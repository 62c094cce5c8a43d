import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { daysEndingOn } from '@cm/core';
import { Meter, ProviderError, rankCheckPrice, type SerpTask, type SerpTaskQueue } from '@cm/providers';
import { runRankChecks, type SiteBudget } from '@cm/tools';
import { rowKey } from '../../packages/store/src/keys';
import { given } from '../helpers/client';
import { article, siteClient, type SiteClient, type TestStack } from '../helpers/local';
import { PRICE, TODAY, later, historyOf, rankLedger, topicWith, useRankTrackingStack } from '../helpers/rank-tracking';

/*
 * Rank tracking on the local stack, offline (test/helpers/rank-tracking.ts): what stops tracking, what a
 * check pays, a run that fails, and the history of a keyword with claims. rank-tracking.test.ts has
 * track_rankings, the keywords and depths it takes, and thirty days of checks read back.
 */

const rank = useRankTrackingStack();
let t: TestStack;
beforeAll(() => {
  t = rank.t();
});
const { scheduleOn, untrackEarlierSites } = rank;

describe('what stops tracking', () => {
  beforeAll(untrackEarlierSites);

  it('cadence off, deleting the topic, the page or a keyword: the next day’s checks leave them out', async () => {
    const s = await siteClient(t, 'stops', { domain: 'stops.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Stops', ['tent pegs', 'camping stove']);
    const otherId = await topicWith(s, 'Other', ['sleeping bag']);
    const page = (
      await s.client.tool('db_insert', {
        table: 'cm_pages',
        row: { title: 'Stove page', primary_keyword: 'camping stove' },
      })
    ).body.row;
    await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' });
    await s.client.tool('track_rankings', { topic_id: otherId, cadence: 'daily' });
    await s.client.tool('track_rankings', { page_id: page.id, cadence: 'daily' });
    await t.stack.drain();
    const checks = async () => (await rankLedger(s)).calls;
    expect(await checks()).toBe(3);

    const days = daysEndingOn(TODAY, 4).map((d) =>
      new Date(Date.parse(`${d}T00:00:00Z`) + 4 * 86_400_000).toISOString().slice(0, 10),
    );
    await scheduleOn(given(days[0], 'the days[0]'));
    expect(await checks()).toBe(6);

    // The other topic off; a keyword of the first topic deleted (its link goes with it).
    await s.client.tool('track_rankings', { topic_id: otherId, cadence: 'off' });
    const pegs = given(
      (await s.client.tool('db_select', { table: 'cm_keywords', where: { keyword: 'tent pegs' } })).body.rows[0],
      'the row of tent pegs',
    );
    await s.client.tool('db_delete', { table: 'cm_keywords', id: pegs.id });
    await scheduleOn(given(days[1], 'the days[1]'));
    expect(await checks()).toBe(7); // camping stove, once for the topic and the page both

    await s.client.tool('db_delete', { table: 'cm_pages', id: page.id });
    await s.client.tool('db_delete', { table: 'cm_topics', id: topicId });
    expect((await s.client.tool('track_rankings', {})).body.tracking).toEqual([]);
    // Their tracking went with them, not only out of the listing.
    expect((await t.store.ranks.tracking(s.siteId)).scopes).toEqual([]);
    await scheduleOn(given(days[2], 'the days[2]'));
    expect(await checks()).toBe(7);
  });

  it('checks a weekly scope on the weekday tracking began', async () => {
    const s = await siteClient(t, 'weekly', { domain: 'weekly.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Weekly', ['kayak paddle']);
    expect(
      (await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'weekly' })).body.tracking[0],
    ).toMatchObject({
      cadence: 'weekly',
      checks_per_month: Math.round((30 / 7) * 100) / 100,
    });
    await t.stack.drain();
    for (let n = 1; n <= 14; n++) await scheduleOn(later(n));
    expect((await rankLedger(s)).calls).toBe(3); // today, a week on, two weeks on
  });
});

describe('what a check pays', () => {
  beforeAll(untrackEarlierSites);

  it("holds the day's checks to the budget: as many as fit are posted, the rest skipped and counted, not queued; with room again, they are checked", async () => {
    const s = await siteClient(t, 'budget', { domain: 'budget.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Budget', ['rain jacket', 'down jacket', 'fleece jacket', 'ski jacket']);
    // Room for two checks and a half, beside what the keyword metrics spent.
    const spent = (await s.client.route('GET /v1/budget')).body.daily.spent_usd;
    await s.client.route('PUT /v1/budget', { body: { daily_usd: Math.round((spent + PRICE * 2.5) * 1e6) / 1e6 } });
    const tracked = await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' });
    expect(tracked.body.first_check).toEqual({ queued: 2, deferred: 2 });
    await t.stack.drain();
    expect(await rankLedger(s)).toMatchObject({ calls: 2 });
    // The day's schedule finds no room: nothing posted, nothing left queued.
    await scheduleOn(TODAY);
    expect(await rankLedger(s)).toMatchObject({ calls: 2 });
    for (const queue of Object.values(t.stack.queues)) expect(queue.deadLetters).toEqual([]);
    const budget = (await s.client.route('GET /v1/budget')).body.daily;
    expect(budget.spent_usd + budget.reserved_usd).toBeLessThanOrEqual(given(budget.limit_usd, 'the daily limit'));
    // With room, the same day's schedule checks the two left, and only those.
    await s.client.route('PUT /v1/budget', { body: { daily_usd: 1 } });
    await scheduleOn(TODAY);
    const ledger = await rankLedger(s);
    expect(ledger.calls).toBe(4);
    expect(ledger.cost).toBeCloseTo(4 * PRICE, 6);
  });

  it('pays nothing for a redelivered message, and nothing for a keyword whose SERP list pulled that day', async () => {
    const s = await siteClient(t, 'listed', { domain: 'listed.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Listed', ['climbing rope', 'climbing shoes', 'chalk bag']);
    expect((await s.client.tool('serp_landscape', { keyword: 'chalk bag', depth: 'list' })).body.list?.fetched).toEqual(
      ['chalk bag'],
    );
    // A live pull is a desktop SERP: it answers a desktop check of that day.
    await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily', device: 'desktop' });
    await t.stack.drain();
    expect(await rankLedger(s)).toMatchObject({ calls: 2 });
    const message = JSON.stringify({ site_id: s.siteId, day: TODAY, requested_at: new Date().toISOString() });
    await t.stack.queues.rank.send(message);
    await t.stack.queues.rank.send(message);
    await t.stack.drain();
    expect(await rankLedger(s)).toMatchObject({ calls: 2 });
    const history = await historyOf(s, { topic_id: topicId, history_days: 1 });
    expect(history.coverage).toEqual({ days: 1, days_with_data: 1, keywords_with_data: 3, failed: [] });
  });

  it('prices turning tracking on as a month of checks (estimate: true), and asks for approval above confirm_above_usd', async () => {
    const s = await siteClient(t, 'priced', { domain: 'priced.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Priced', ['paddle board', 'wetsuit']);
    const estimate = await s.client.tool('track_rankings', {
      topic_id: topicId,
      cadence: 'daily',
      depth: 30,
      estimate: true,
    });
    const unit = rankCheckPrice(30);
    expect(estimate.body).toMatchObject({
      estimate: true,
      tool: 'track_rankings',
      data_source: 'sandbox',
      calls: [{ provider: 'sandbox', endpoint: 'serp_task_post', count: 60, unit_usd: unit }],
      total_usd: Math.round(60 * unit * 1e6) / 1e6,
      approval_required: false,
    });
    // Nothing was set.
    expect((await s.client.tool('track_rankings', {})).body).toMatchObject({ tracking: [], depth: 20 });
    expect(
      (await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'off', estimate: true })).body.total_usd,
    ).toBe(0);

    await s.client.route('PUT /v1/budget', { body: { confirm_above_usd: 0.01 } });
    const asked = await s.client.toolError('track_rankings', { topic_id: topicId, cadence: 'daily' });
    expect(asked).toMatchObject({ status: 428, body: { code: 'approval_required' } });
    expect((await s.client.tool('track_rankings', {})).body.tracking).toEqual([]);
    const confirmed = await s.client.tool('track_rankings', {
      topic_id: topicId,
      cadence: 'daily',
      confirm: String(asked.body.confirm),
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.tracking).toHaveLength(1);
    // Stopping commits to nothing, and asks for nothing.
    expect((await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'off' })).body.tracking).toEqual([]);
    await t.stack.drain();
  });

  it("keeps a page's tracking beside its topic's: each keyword checked once a day, at the most frequent cadence", async () => {
    const s = await siteClient(t, 'shared', { domain: 'shared.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Shared', ['tent', 'tarp']);
    const page = (
      await s.client.tool('db_insert', {
        table: 'cm_pages',
        row: { title: 'Tent page', topic_id: topicId, primary_keyword: 'tent', secondary_keywords: ['bivvy bag'] },
      })
    ).body.row;
    await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'weekly' });
    const both = await s.client.tool('track_rankings', { page_id: page.id, cadence: 'daily' });
    // bivvy bag has no keyword row: not tracked, and said so.
    expect(both.body.untracked).toEqual([
      { keyword: 'bivvy bag', reason: expect.stringContaining('no cm_keywords row') },
    ]);
    expect(both.body.total).toMatchObject({ keywords: 2, checks_per_month: 30 + Math.round((30 / 7) * 100) / 100 });
    await t.stack.drain();
    expect(await rankLedger(s)).toMatchObject({ calls: 2 });
  });
});

describe('a run that fails says so', () => {
  beforeAll(untrackEarlierSites);

  afterAll(() => {
    // The runs failed here on purpose were dead-lettered: no other test's business.
    for (const queue of Object.values(t.stack.queues)) queue.deadLetters.splice(0);
  });

  /** A published article's cm_pages row in the topic, targeting `keyword`. */
  async function publishedPage(s: SiteClient, topicId: number, slug: string, keyword: string) {
    const published = await s.client.route('POST /articles', { body: article(slug) });
    const page = await s.client.tool('db_insert', {
      table: 'cm_pages',
      row: { title: slug, topic_id: topicId, primary_keyword: keyword, published_id: published.body.id },
    });
    return page.body.row.id;
  }
  const lastRuns = async (s: SiteClient) =>
    Object.fromEntries(
      (await s.client.tool('track_rankings', {})).body.tracking.map((e) => [
        `${e.scope.type} ${e.scope.id}`,
        e.last_run,
      ]),
    );

  it("checks a topic and one of its published pages, both tracked, each keyword once: no scope's run fails", async () => {
    const s = await siteClient(t, 'overlap', { domain: 'overlap.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Overlap', ['cycling gloves', 'cycling socks']);
    const pageId = await publishedPage(s, topicId, 'cycling-gloves', 'cycling gloves');
    await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' });
    await s.client.tool('track_rankings', { page_id: pageId, cadence: 'daily' });
    await t.stack.drain();
    const day = later(1);
    await scheduleOn(day);
    expect(t.stack.queues.rank.deadLetters).toEqual([]);
    expect(await rankLedger(s)).toMatchObject({ calls: 4 });
    expect(await lastRuns(s)).toEqual({
      [`topic ${topicId}`]: expect.objectContaining({ day, status: 'ok' }),
      [`page ${pageId}`]: expect.objectContaining({ day, status: 'ok' }),
    });
    const history = await historyOf(s, { page_id: pageId, history_days: 2 });
    expect(history.coverage).toMatchObject({ days_with_data: 2, failed: [] });
    expect(history.pages).toHaveLength(1);
  });

  it('fails one scope alone: the others are checked, and the tracking and the history name the day it failed and why', async () => {
    const s = await siteClient(t, 'one-bad', { domain: 'one-bad.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Good', ['ski wax']);
    const badTopic = await topicWith(s, 'Bad', ['ski poles']);
    const pageId = (
      await s.client.tool('db_insert', {
        table: 'cm_pages',
        row: { title: 'Poles', topic_id: badTopic, primary_keyword: 'ski poles' },
      })
    ).body.row.id;
    await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily' });
    await s.client.tool('track_rankings', { page_id: pageId, cadence: 'daily' });
    await t.stack.drain();
    // The page's row turns unreadable (its title gone): its scope's keywords cannot be read.
    const key = rowKey(s.siteId, 'cm_pages', pageId);
    const stored = given(
      (await t.db.send(new GetCommand({ TableName: t.stack.tableName, Key: key }))).Item,
      'the Item',
    );
    const { title: _title, ...broken } = stored.row;
    await t.db.send(new PutCommand({ TableName: t.stack.tableName, Item: { ...stored, row: broken } }));
    const day = later(2);
    await scheduleOn(day);
    // The good topic's keyword was checked once, whatever the retries of the message.
    expect(await rankLedger(s)).toMatchObject({ calls: 3 });
    expect(t.stack.queues.rank.deadLetters).toHaveLength(1);
    await t.db.send(new PutCommand({ TableName: t.stack.tableName, Item: stored }));
    expect(await lastRuns(s)).toEqual({
      [`topic ${topicId}`]: expect.objectContaining({ day, status: 'ok' }),
      [`page ${pageId}`]: expect.objectContaining({
        day,
        status: 'failed',
        error: expect.stringContaining('internal error'),
      }),
    });
    const history = await historyOf(s, { page_id: pageId, history_days: 3 });
    expect(history.coverage.failed).toEqual([{ day, error: expect.stringContaining('internal error') }]);
  });

  describe('a run whose provider refuses', () => {
    /** A site's run of `day` on a standard queue that answers with `post`, free (no budget involved). */
    const runOn = (siteId: number, day: string, post: SerpTaskQueue['post']) =>
      runRankChecks(
        {
          store: t.store,
          serpQueue: {
            name: 'refusing',
            postEndpoint: 'post',
            tasksPerPost: 100,
            readySeconds: 0,
            post,
            collect: () => Promise.reject(new Error('not read')),
            placeTracked: (items) => [...items],
            citeTracked: (overview) => overview,
          },
          meter: new Meter(),
          now: new Date(),
          budget: {} as SiteBudget,
          enqueue: (name, body) => t.stack.queues[name].send(JSON.stringify(body)),
          checkPriceUsd: () => 0,
        },
        { site_id: siteId, day, requested_at: new Date().toISOString() },
      );

    it('records the checks it refused as partial, the ones refused for good as failed in the history; a post refused whole fails the run, said on the scope', async () => {
      const s = await siteClient(t, 'refusing', { domain: 'refusing.example.com', locale: 'US/en' });
      const topicId = await topicWith(s, 'Refused', ['ice axe', 'crampons', 'gaiters']);
      await t.store.ranks.track(
        s.siteId,
        { type: 'topic', id: topicId },
        { cadence: 'daily', max_keywords: 50 },
        new Date(),
      );
      const day = later(5);
      const answers = (tasks: readonly SerpTask[]) =>
        Promise.resolve(
          tasks.map((task) =>
            task.keyword === 'ice axe'
              ? { tag: task.tag, error: 'invalid field', retryable: false }
              : task.keyword === 'crampons'
                ? { tag: task.tag, error: 'busy', retryable: true }
                : { tag: task.tag, id: `task-${task.keyword}` },
          ),
        );
      const outcome = await runOn(s.siteId, day, answers);
      expect(outcome.posted).toBe(1);
      expect(outcome.refused.map((r) => r.keyword).sort()).toEqual(['crampons', 'ice axe']);
      expect((await lastRuns(s))[`topic ${topicId}`]).toMatchObject({ day, status: 'partial' });
      await t.stack.drain();
      // The stack's sandbox collects the one posted, and knows no such task: that day has no row for it either.
      const failed = (await historyOf(s, { topic_id: topicId, history_days: 1 })).coverage.failed;
      expect(failed.map((f) => [f.keyword, f.error])).toEqual([
        ['gaiters', expect.stringContaining('no sandbox task')],
        ['ice axe', 'invalid field'],
      ]);
      for (const queue of Object.values(t.stack.queues)) queue.deadLetters.splice(0);

      // The next day, a post refused whole: the run fails, its scope says why, and so does the history.
      const next = later(6);
      await expect(
        runOn(s.siteId, next, () => Promise.reject(new ProviderError('refusing', 'rate limited', true))),
      ).rejects.toThrow('rate limited');
      expect((await lastRuns(s))[`topic ${topicId}`]).toMatchObject({
        day: next,
        status: 'failed',
        error: 'rate limited',
      });
      const history = await historyOf(s, { topic_id: topicId, history_days: 2 });
      expect(history.coverage.failed[0]).toEqual({ day: next, error: 'rate limited' });
      // Run again without failing, the day is taken out of the failed runs.
      await runOn(s.siteId, next, answers);
      const again = await historyOf(s, { topic_id: topicId, history_days: 2 });
      expect(again.coverage.failed.filter((f) => f.keyword === undefined)).toEqual([]);
    });

    it('records nothing on a scope stopped while its run ran, and a failure never replaces a stored row', async () => {
      const s = await siteClient(t, 'stopped-midrun', { domain: 'stopped-midrun.example.com', locale: 'US/en' });
      const topicId = await topicWith(s, 'Stopped', ['bear spray']);
      const scope = { type: 'topic', id: topicId } as const;
      await t.store.ranks.track(s.siteId, scope, { cadence: 'daily', max_keywords: 50 }, new Date());
      const day = later(7);
      await runOn(s.siteId, day, async (tasks) => {
        await t.store.ranks.untrack(s.siteId, scope);
        return tasks.map((task) => ({ tag: task.tag, id: 'x' }));
      });
      expect(await t.store.ranks.trackedScope(s.siteId, scope)).toBeNull();

      const row = {
        keyword: 'bear spray',
        locale: 'US/en',
        device: 'desktop' as const,
        day,
        checked_at: new Date().toISOString(),
        data_source: 'sandbox',
        depth: 20,
        domains: [],
        site_results: [],
      };
      await t.store.ranks.put(s.siteId, [row]);
      await t.store.ranks.fail(s.siteId, [{ ...row, error: 'late failure' }], new Date());
      expect((await t.store.ranks.latest(s.siteId, 'US/en', 'bear spray', 1)).rows).toEqual([
        expect.objectContaining({ day }),
      ]);
    });
  });

  it("stores a check the provider had no SERP for as failed: the history's coverage names its day and keyword", async () => {
    const s = await siteClient(t, 'no-serp', { domain: 'no-serp.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'No SERP', ['snow boots']);
    const day = later(3);
    await t.stack.queues['rank-collect'].send(
      JSON.stringify({
        site_id: s.siteId,
        day,
        depth: 20,
        site_domain: 'no-serp.example.com',
        tasks: [{ id: 'lost-task', locale: 'US/en', keyword: 'snow boots' }],
      }),
    );
    await t.stack.drain();
    const history = await historyOf(s, { topic_id: topicId, history_days: 7 });
    expect(history.days[6]).toBe(day);
    expect(history.coverage).toMatchObject({
      days_with_data: 0,
      failed: [{ day, keyword: 'snow boots', error: expect.stringContaining('no sandbox task') }],
    });
  });
});

describe('the history of a keyword with claims', () => {
  it('reads its last days checked past the claims among them: pending, given back, of later days', async () => {
    const s = await siteClient(t, 'claimed-ahead', { domain: 'claimed-ahead.example.com', locale: 'US/en' });
    const topicId = await topicWith(s, 'Kettles', ['camp kettle']);
    await s.client.tool('track_rankings', { topic_id: topicId, cadence: 'daily', device: 'desktop' });
    await t.stack.drain();
    const check = (day: string, runId: string) => ({
      siteId: s.siteId,
      locale: 'US/en',
      keyword: 'camp kettle',
      day,
      runId,
    });
    // Yesterday's check failed; more claims than the first page's room sit after today's row.
    await t.store.ranks.fail(
      s.siteId,
      [{ locale: 'US/en', keyword: 'camp kettle', day: later(-1), error: 'lost' }],
      new Date(),
    );
    for (let n = 1; n <= 12; n++) expect(await t.store.ranks.claim(check(later(n), `run-${n}`), new Date())).toBe(true);
    for (const n of [2, 5, 9]) await t.store.ranks.giveBack(check(later(n), `run-${n}`), new Date());

    const one = await t.store.ranks.latest(s.siteId, 'US/en', 'camp kettle', 1);
    expect(one.rows.map((r) => r.day)).toEqual([TODAY]);
    expect(one.failed).toEqual([]);
    const two = await t.store.ranks.latest(s.siteId, 'US/en', 'camp kettle', 2);
    expect([two.rows.map((r) => r.day), two.failed.map((f) => f.day)]).toEqual([[TODAY], [later(-1)]]);
    const history = await historyOf(s, { topic_id: topicId, history_days: 1 });
    expect(history.days).toEqual([TODAY]);
    expect(history.coverage).toMatchObject({ days_with_data: 1, keywords_with_data: 1 });
  });
});
