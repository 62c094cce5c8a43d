import { LIMITS, type SearchDay } from '@cm/contract';
import { searchBackfillDays, searchConsoleToday, searchImportDay, searchPlanDays } from '@cm/core';
import { Meter, ProviderError, SandboxSearchConsole } from '@cm/providers';
import { given } from '../helpers/client';
import { fakeClock } from '../helpers/clock';
import { article, getAtHost, siteClient, useTestStack, type SiteClient } from '../helpers/local';

/*
 * Search Console on the local stack (docs/api/search-console.md): a sandbox property connected, its
 * days imported on connect and by the daily schedule, each stored day checked against the rows the
 * sandbox gives, the verification the site's domain serves, and disconnecting.
 */

const t = useTestStack();
const HOST = 'gsc-shop.example.com';
const PROPERTY = `sc-domain:${HOST}`;
const TOKEN = 'Gsc-token_42';
const TODAY = new Date().toISOString().slice(0, 10);
const dayAfter = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
/** Noon UTC of a day: the same day in Pacific time, Search Console's. */
const noonOf = (day: string) => new Date(`${day}T12:00:00.000Z`);

let s: SiteClient;
/** The site's published pages: their URLs on its domain, ids, and keywords, as the sandbox knows them. */
const pages: Array<{ url: string; id: string; keywords: string[] }> = [];
const dayRows = jest.spyOn(SandboxSearchConsole.prototype, 'dayRows');

/** The reads the sandbox gives the property for `date`, read again from the provider itself. */
const sandboxReads = (date: string) =>
  new SandboxSearchConsole().dayRows(
    PROPERTY,
    date,
    'final',
    {
      siteDomain: HOST,
      locale: 'US/en',
      pages: [...pages].reverse().map(({ url, keywords }) => ({ url, keywords })),
    },
    new Meter(),
  );

const storedDays = (from: string, to: string): Promise<SearchDay[]> => t.store.searchDays.range(s.siteId, from, to);

beforeAll(async () => {
  fakeClock(Date.parse(`${TODAY}T12:00:00.000Z`));
  // The schedule's monitoring runs are not this file's: held.
  jest.spyOn(t.stack.queues.monitor, 'send').mockResolvedValue();
  s = await siteClient(t, 'Search Console shop', { domain: HOST, locale: 'US/en' });
  expect(await t.store.sites.serveDomain(s.siteId, HOST)).toBe('served');
  for (const [slug, keywords] of [
    ['tent-pegs', ['tent pegs', 'tent stakes']],
    ['camp-stoves', ['camping stove']],
  ] as const) {
    const published = await s.client.route('POST /articles', { body: article(slug) });
    const [primary, ...secondary] = keywords;
    await s.client.tool('db_insert', {
      table: 'cm_pages',
      row: { title: slug, primary_keyword: primary, secondary_keywords: secondary, published_id: published.body.id },
    });
    pages.push({ url: `https://${HOST}/articles/${slug}`, id: published.body.id, keywords: [...keywords] });
  }
  // One keyword row: its query is tracked, the others are not.
  await s.client.tool('db_insert', { table: 'cm_keywords', row: { keyword: 'tent pegs' } });
}, 60_000);
afterAll(() => jest.useRealTimers());

describe('connecting', () => {
  it('refuses a property of another domain, or a token of other characters, and stores nothing', async () => {
    for (const body of [
      { property: 'sc-domain:elsewhere.example.com' },
      { property: `http://${HOST}/` },
      { property: `https://${HOST}/blog/` },
      { property: HOST },
      { property: PROPERTY, verification_token: 'has space' },
      { property: PROPERTY, verification_token: 'x'.repeat(101) },
    ]) {
      const reply = await s.call('PUT', '/v1/search-console', body);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ code: 'validation_failed' });
    }
    expect(
      (await s.call('PUT', '/v1/search-console', { property: 'sc-domain:elsewhere.example.com' })).body.message,
    ).toContain(`sc-domain:${HOST}`);
    // Before any connection, GET names the account to add (none in the sandbox).
    expect(await s.call('GET', '/v1/search-console')).toMatchObject({
      status: 404,
      body: { code: 'not_found', service_account_email: null },
    });
    expect((await t.store.sites.get(s.siteId))?.search_console_token).toBeUndefined();
  });

  it('connects, serves the verification at the domain, and imports the last 56 days, each as the sandbox gave it', async () => {
    const put = await s.call('PUT', '/v1/search-console', { property: PROPERTY, verification_token: TOKEN });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      property: PROPERTY,
      status: 'pending',
      service_account_email: null,
      verification: {
        meta_tag: `<meta name="google-site-verification" content="${TOKEN}">`,
        file_url: `https://${HOST}/google${TOKEN}.html`,
      },
      imported_through: null,
      last_error: null,
      connected_at: new Date().toISOString(),
    });
    const file = await getAtHost(t, HOST, `/google${TOKEN}.html`);
    expect(file).toMatchObject({ status: 200, text: `google-site-verification: google${TOKEN}.html` });
    expect((await getAtHost(t, HOST, '/googleOther.html')).status).toBe(404);
    expect((await getAtHost(t, HOST, '/')).text).toContain(`<meta name="google-site-verification" content="${TOKEN}">`);
    // The home page only: Google's HTML tag method reads it.
    const articlePage = await getAtHost(t, HOST, '/articles/tent-pegs');
    expect(articlePage.status).toBe(200);
    expect(articlePage.text).not.toContain('google-site-verification');

    await t.stack.drain();
    const days = searchBackfillDays(TODAY);
    expect(days).toHaveLength(56);
    expect(days.at(-1)).toBe(searchImportDay(TODAY));
    const stored = await storedDays(given(days[0], 'the first day'), TODAY);
    expect(stored.map((day) => day.date)).toEqual(days);
    for (const day of [stored[0], stored[27], stored[55]].map((d) => given(d, 'a stored day'))) {
      const reads = await sandboxReads(day.date);
      const rows = reads.totals.length + reads.pages.length + reads.queries.length;
      expect(day).toMatchObject({ data_state: 'final', data_source: 'sandbox', rows });
      const sum = (of: ReadonlyArray<{ clicks: number; impressions: number }>, field: 'clicks' | 'impressions') =>
        of.reduce((n, r) => n + r[field], 0);
      const { totals } = reads;
      expect(day.totals).toMatchObject({ clicks: sum(totals, 'clicks'), impressions: sum(totals, 'impressions') });
      // The searches Google names no query of count in the totals, not among the queries.
      expect(day.totals.impressions).toBeGreaterThan(sum(day.queries, 'impressions'));
      for (const page of pages) {
        const ofPage = reads.pages.filter((r) => r.page === page.url);
        expect(day.pages.find((p) => p.url === page.url)).toMatchObject({
          page: { type: 'article', id: page.id },
          clicks: sum(ofPage, 'clicks'),
          impressions: sum(ofPage, 'impressions'),
        });
      }
      expect(day.pages.length).toBeLessThanOrEqual(LIMITS.searchDayPages);
      expect(day.queries.find((q) => q.query === 'tent pegs')?.tracked).toBe(true);
      expect(day.queries.find((q) => q.query === 'camping stove')?.tracked).toBe(false);
    }
    expect((await s.call('GET', '/v1/search-console')).body).toMatchObject({
      status: 'connected',
      imported_through: days.at(-1),
      last_error: null,
    });
    // The ledger: three calls a day (its three reads), at $0.
    const usage = await s.call('GET', '/v1/usage?from=2000-01-01T00:00:00.000Z&to=2100-01-01T00:00:00.000Z');
    expect(usage.body.by_tool.filter((line: { tool: string }) => line.tool === 'search_console')).toEqual([
      expect.objectContaining({ provider: 'sandbox', calls: 3 * 56, cost_usd: 0 }),
    ]);
  });

  it('makes no provider call and writes nothing for a redelivered day, and the same property again queues nothing', async () => {
    const day = searchImportDay(TODAY);
    const before = dayRows.mock.calls.length;
    const recording = t.stack.dynamo.record();
    await t.stack.queues['search-console'].send(JSON.stringify({ site_id: s.siteId, date: day, state: 'final' }));
    await t.stack.drain();
    recording.stop();
    expect(dayRows.mock.calls.length).toBe(before);
    // Read (the connection, the site, whether the day is final), nothing written.
    expect(recording.operations()).toContain('GetItem');
    expect(recording.operations().filter((op) => op !== 'GetItem')).toEqual([]);
    await s.call('PUT', '/v1/search-console', { property: PROPERTY });
    await t.stack.drain();
    expect(dayRows.mock.calls.length).toBe(before);
  });

  it('stores nothing for a day Google has not made final yet, and an empty old day as a day of no traffic', async () => {
    const recent = dayAfter(searchImportDay(TODAY), 1);
    const before = dayRows.mock.calls.length;
    await t.stack.queues['search-console'].send(JSON.stringify({ site_id: s.siteId, date: recent, state: 'final' }));
    await t.stack.drain();
    expect(dayRows.mock.calls.length).toBe(before + 1);
    expect(await storedDays(recent, recent)).toEqual([]);
    expect(t.stack.queues['search-console'].deadLetters).toEqual([]);
    expect((await s.call('GET', '/v1/search-console')).body).toMatchObject({ status: 'connected', last_error: null });
    // As old as the oldest day the plan asks: no rows is the day's answer, stored final.
    const old = dayAfter(searchImportDay(TODAY), -60);
    dayRows.mockResolvedValueOnce({ totals: [], pages: [], queries: [], calls: 1 });
    await t.stack.queues['search-console'].send(JSON.stringify({ site_id: s.siteId, date: old, state: 'final' }));
    await t.stack.drain();
    expect(await storedDays(old, old)).toEqual([expect.objectContaining({ date: old, rows: 0, data_state: 'final' })]);
  });

  it('imports the last three Pacific days each day from the daily schedule, asking Google only for those not final', async () => {
    const tomorrow = dayAfter(TODAY, 1);
    jest.setSystemTime(noonOf(tomorrow));
    // 00:10 UTC is the day before in Pacific time: its plan asks that day's days.
    expect(searchPlanDays(searchConsoleToday(new Date(`${tomorrow}T00:10:00.000Z`)))).toEqual(
      [3, 4, 5].map((n) => dayAfter(TODAY, -n)),
    );
    const before = dayRows.mock.calls.length;
    await t.stack.runSchedule(noonOf(tomorrow));
    await t.stack.drain();
    const day = searchImportDay(tomorrow);
    expect(searchPlanDays(tomorrow)[0]).toBe(day);
    expect(dayRows.mock.calls.length).toBe(before + 1);
    const [stored] = await storedDays(day, day);
    expect(stored?.totals.clicks).toBe((await sandboxReads(day)).totals.reduce((n, r) => n + r.clicks, 0));
    expect((await s.call('GET', '/v1/search-console')).body.imported_through).toBe(day);
  });

  it('marks the connection failed with why when the provider refuses, and connected again once an import reads it', async () => {
    jest.setSystemTime(noonOf(dayAfter(TODAY, 5)));
    const day = searchImportDay(dayAfter(TODAY, 5));
    dayRows.mockRejectedValueOnce(
      new ProviderError('google-search-console', 'the service account is not a user of the property', false),
    );
    await t.stack.queues['search-console'].send(JSON.stringify({ site_id: s.siteId, date: day, state: 'final' }));
    await t.stack.drain();
    expect((await s.call('GET', '/v1/search-console')).body).toMatchObject({
      status: 'failed',
      last_error: 'the service account is not a user of the property',
    });
    expect(await storedDays(day, day)).toEqual([]);
    expect(t.stack.queues['search-console'].deadLetters).toEqual([]);
    // An import of another property's (one connected before) changes nothing of this one.
    await t.store.searchConsole.recordImport(s.siteId, 'sc-domain:old.example.com', day, null);
    expect((await s.call('GET', '/v1/search-console')).body.status).toBe('failed');
    await t.stack.queues['search-console'].send(JSON.stringify({ site_id: s.siteId, date: day, state: 'final' }));
    await t.stack.drain();
    expect((await s.call('GET', '/v1/search-console')).body).toMatchObject({
      status: 'connected',
      last_error: null,
      imported_through: day,
    });
    // Read after a refusal: the next daily plan asks the 56 days again (the worker never sends to its own
    // queue), and the days refused or missed so are stored.
    expect(await storedDays(dayAfter(TODAY, -5), dayAfter(day, -1))).toHaveLength(4);
    await t.stack.runSchedule(noonOf(dayAfter(TODAY, 5)));
    await t.stack.drain();
    expect((await storedDays(dayAfter(TODAY, -5), day)).map((d) => d.date)).toEqual(
      [-5, -4, -3, -2, -1, 0, 1, 2].map((n) => dayAfter(TODAY, n)),
    );
  });

  it('delivers a day again when the provider asks for a retry, and imports nothing for a site not connected', async () => {
    jest.setSystemTime(noonOf(dayAfter(TODAY, 6)));
    const day = searchImportDay(dayAfter(TODAY, 6));
    dayRows.mockRejectedValueOnce(new ProviderError('google-search-console', 'rate limited (429)', true, 429));
    const before = dayRows.mock.calls.length;
    await t.stack.queues['search-console'].send(JSON.stringify({ site_id: s.siteId, date: day, state: 'final' }));
    await t.stack.drain();
    expect(dayRows.mock.calls.length).toBe(before + 2);
    expect(await storedDays(day, day)).toHaveLength(1);
    expect(t.stack.queues['search-console'].deadLetters).toEqual([]);
    expect((await s.call('GET', '/v1/search-console')).body).toMatchObject({ status: 'connected', last_error: null });
    const other = await siteClient(t, 'Not connected', { domain: 'unconnected.example.com' });
    await t.stack.queues['search-console'].send(JSON.stringify({ site_id: other.siteId, date: day, state: 'final' }));
    await t.stack.drain();
    expect(dayRows.mock.calls.length).toBe(before + 2);
    expect(await t.store.searchDays.range(other.siteId, day, day)).toEqual([]);
  });

  it('disconnects: no more imports, the days kept, the verification still served', async () => {
    const removed = await s.call('DELETE', '/v1/search-console');
    expect(removed).toMatchObject({ status: 200, body: { property: PROPERTY } });
    expect((await s.call('GET', '/v1/search-console')).status).toBe(404);
    expect((await s.call('DELETE', '/v1/search-console')).status).toBe(404);
    const before = dayRows.mock.calls.length;
    const later = dayAfter(TODAY, 10);
    await t.stack.runSchedule(new Date(`${later}T06:00:00.000Z`));
    await t.stack.drain();
    expect(dayRows.mock.calls.length).toBe(before);
    expect(await storedDays(searchImportDay(later), searchImportDay(later))).toEqual([]);
    expect(await storedDays(searchBackfillDays(TODAY)[0] ?? TODAY, dayAfter(TODAY, 5))).toHaveLength(62);
    expect((await getAtHost(t, HOST, `/google${TOKEN}.html`)).status).toBe(200);
  });
});
