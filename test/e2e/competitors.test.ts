import { healthFlags } from '@cm/core';
import { sandboxReferringDomains } from '@cm/providers';
import { fakeClock } from '../helpers/clock';
import { useTestStack } from '../helpers/local';
import { given } from '../helpers/client';
import { freeBacklinkData } from '../helpers/monitoring-seed';

/* add_competitor under the cap of 10, monitoring (on add and on schedule), and serp_backlinks, over HTTP on the sandbox. */

const t = useTestStack();

async function site(domain = 'shoes.example.com') {
  const created = await t.newSite('Competitor site', { domain, locale: 'US/en' });
  const tool = (name: string, body: unknown) => t.call('POST', `/v1/tools/${name}`, body, { key: created.key });
  return { ...created, domain, tool };
}
type Site = Awaited<ReturnType<typeof site>>;

// What a test queued runs with its own provider data: its monitoring ends with it.
afterEach(async () => {
  await t.stack.drain();
  jest.restoreAllMocks();
});

const rivals = (n: number, prefix = 'rival') => Array.from({ length: n }, (_v, i) => `${prefix}-${i + 1}.com`);
const activeRows = async (s: Site) => (await s.tool('db_select', { table: 'cm_competitors', limit: 200 })).body.rows;

describe('add_competitor', () => {
  // The cap, not what monitoring finds: the sandbox's backlink data free.
  beforeEach(freeBacklinkData);

  it('lets exactly 10 of 15 concurrent adds in; the other 5 get 409 competitor_limit_reached with max_active', async () => {
    const s = await site();
    const replies = await Promise.all(rivals(15).map((domain) => s.tool('add_competitor', { domain })));
    const added = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 409);
    expect(added).toHaveLength(10);
    expect(refused).toHaveLength(5);
    for (const r of added)
      expect(r.body).toMatchObject({
        created: true,
        competitor: { active: true, domain: expect.stringMatching(/^rival-\d+\.com$/) },
      });
    for (const r of refused) expect(r.body).toMatchObject({ error: 'competitor_limit_reached', max_active: 10 });
    expect(await activeRows(s)).toHaveLength(10);
    const places = await t.store.competitorPlaces(s.siteId).state();
    expect(places.inflight).toBe(10);
    expect(Object.keys(places.leases).sort()).toEqual(
      (await activeRows(s)).map((r: { domain: string }) => r.domain).sort(),
    );

    // db_insert counts toward the same cap.
    const inserted = await s.tool('db_insert', { table: 'cm_competitors', row: { domain: 'eleventh.com' } });
    expect(inserted.status).toBe(409);
    expect(inserted.body).toMatchObject({ error: 'competitor_limit_reached', max_active: 10 });
  });

  it('frees a place on delete: another can be added, and the deleted one is no longer monitored', async () => {
    const s = await site();
    for (const domain of rivals(10, 'cap')) expect((await s.tool('add_competitor', { domain })).status).toBe(200);
    await t.stack.drain();
    const rows = await activeRows(s);
    const gone = rows[0];
    const kept = rows[1];
    expect(await t.store.backlinks.latest(s.siteId, gone.domain)).not.toBeNull();

    expect((await s.tool('db_delete', { table: 'cm_competitors', id: gone.id })).status).toBe(200);
    const next = await s.tool('add_competitor', { domain: 'newcomer.com' });
    expect(next.status).toBe(200);
    expect(next.body.created).toBe(true);
    await t.stack.drain();

    const before = {
      gone: given(await t.store.backlinks.latest(s.siteId, gone.domain), 'the backlinks of the gone rival').taken_at,
      kept: given(await t.store.backlinks.latest(s.siteId, kept.domain), 'the backlinks of the kept rival').taken_at,
    };
    // The next day's schedule: today's runs are claimed, so only a new day monitors them again.
    fakeClock(Date.now() + 86_400_000);
    try {
      expect((await t.stack.runSchedule()).sites).toBeGreaterThanOrEqual(s.siteId);
      await t.stack.drain();
    } finally {
      jest.useRealTimers();
    }
    expect(
      given(await t.store.backlinks.latest(s.siteId, gone.domain), 'the backlinks of the gone rival').taken_at,
    ).toBe(before.gone);
    expect(
      given(await t.store.backlinks.latest(s.siteId, kept.domain), 'the backlinks of the kept rival').taken_at >
        before.kept,
    ).toBe(true);
    expect(await t.store.backlinks.latest(s.siteId, 'newcomer.com')).not.toBeNull();
  });

  it('takes back the place of an add that died before storing its row, or of a delete that died before freeing it, and no other', async () => {
    const s = await site();
    const places = t.store.competitorPlaces(s.siteId);
    // Left behind by dead calls: a pending add (expired) and a delete (row gone, place confirmed).
    expect((await places.take('died-adding.com', Date.now() - 1)).taken).toBe(true);
    expect((await places.take('died-deleting.com', Number.MAX_SAFE_INTEGER)).taken).toBe(true);
    for (const domain of rivals(8, 'live')) expect((await s.tool('add_competitor', { domain })).status).toBe(200);
    expect((await places.state()).inflight).toBe(10);

    expect((await s.tool('add_competitor', { domain: 'ninth.com' })).status).toBe(200);
    expect((await s.tool('add_competitor', { domain: 'tenth.com' })).status).toBe(200);
    expect((await s.tool('add_competitor', { domain: 'eleventh.com' })).status).toBe(409); // live rows keep theirs
    const state = await places.state();
    expect(Object.keys(state.leases).sort()).toEqual(
      (await activeRows(s)).map((r: { domain: string }) => r.domain).sort(),
    );
    expect(state.inflight).toBe(10);
  });

  it('normalizes the domain, returns an active domain again with created: false, and refuses bad input with 400', async () => {
    const s = await site();
    const first = await s.tool('add_competitor', {
      domain: 'https://www.Rival-Shoes.com:443/deals?x=1',
      display_name: 'Rival',
      color: '#FF0000',
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      data_source: 'database',
      created: true,
      competitor: {
        domain: 'rival-shoes.com',
        display_name: 'Rival',
        color: '#ff0000',
        active: true,
        added_at: expect.any(String),
      },
    });
    const again = await Promise.all([1, 2, 3].map(() => s.tool('add_competitor', { domain: 'rival-shoes.com' })));
    for (const r of again)
      expect(r.body).toMatchObject({ created: false, competitor: { id: first.body.competitor.id } });
    expect(await activeRows(s)).toHaveLength(1);
    const twice = await Promise.all([1, 2, 3, 4].map(() => s.tool('add_competitor', { domain: 'racing.com' })));
    expect(twice.filter((r) => r.body.created === true)).toHaveLength(1);
    expect(new Set(twice.map((r) => r.body.competitor.id)).size).toBe(1);
    expect((await s.tool('db_insert', { table: 'cm_competitors', row: { domain: 'racing.com' } })).body.error).toBe(
      'already_exists',
    );

    for (const [body, path] of [
      [{ domain: 'rival.com', color: 'red' }, 'color'],
      [{ domain: 'rival.com', color: '#abcd' }, 'color'],
      [{ domain: 'not a domain' }, 'domain'],
      [{ domain: 'https://shoes.example.com/' }, 'domain'],
      [{}, 'domain'],
    ] as const) {
      const reply = await s.tool('add_competitor', body);
      expect([path, reply.status]).toEqual([path, 400]);
      expect(reply.body.issues[0].path).toBe(path);
    }
  });
});

describe('internationalised domain names (audit)', () => {
  it('accepts münchen.de in add_competitor and serp_backlinks, stored as punycode with the Unicode form for display', async () => {
    const s = await site();
    const added = await s.tool('add_competitor', { domain: 'münchen.de' });
    expect(added.status).toBe(200);
    expect(added.body.competitor).toMatchObject({
      domain: 'xn--mnchen-3ya.de',
      domain_unicode: 'münchen.de',
      active: true,
    });
    const again = await s.tool('add_competitor', { domain: 'https://münchen.de/path' });
    expect(again.body).toMatchObject({ created: false, competitor: { id: added.body.competitor.id } });
    expect((await activeRows(s)).map((row: { domain: string }) => row.domain)).toEqual(['xn--mnchen-3ya.de']);

    const links = await s.tool('serp_backlinks', { scope: 'https://münchen.de/path', depth: 'links', limit: 5 });
    expect(links.status).toBe(200);
    expect(links.body).toMatchObject({ domain: 'xn--mnchen-3ya.de', domain_unicode: 'münchen.de' });
    const looked = await s.tool('serp_backlinks', { scope: 'bücher.example' });
    expect(looked.status).toBe(200);
    expect(looked.body.profiles[0]).toMatchObject({
      domain: 'xn--bcher-kva.example',
      domain_unicode: 'bücher.example',
    });
    expect((await s.tool('add_competitor', { domain: 'münchen..de' })).status).toBe(400);
  });
});

describe('competitor rows stored by db_insert', () => {
  const placesOf = async (s: Site) => t.store.competitorPlaces(s.siteId).state();

  it('completes an incomplete row on add_competitor: monitoring starts and its profile appears; created: false, completed: true', async () => {
    const s = await site('complete.example.com');
    const inserted = await s.tool('db_insert', { table: 'cm_competitors', row: { domain: 'half-done.com' } });
    expect(inserted.status).toBe(200);
    expect(inserted.body.row).toMatchObject({ domain: 'half-done.com', active: true, incomplete: true });
    expect(inserted.body.warnings[0]).toContain('add_competitor with its domain completes it');
    await t.stack.drain();
    expect(await t.store.backlinks.latest(s.siteId, 'half-done.com')).toBeNull(); // no monitoring yet
    expect((await placesOf(s)).leases).toEqual({ 'half-done.com': expect.any(Number) });

    const added = await s.tool('add_competitor', {
      domain: 'https://half-done.com/',
      display_name: 'Half',
      color: '#0A0',
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({
      created: false,
      completed: true,
      competitor: {
        id: inserted.body.row.id,
        domain: 'half-done.com',
        display_name: 'Half',
        color: '#00aa00',
        active: true,
      },
    });
    await t.stack.drain();
    expect(await t.store.backlinks.latest(s.siteId, 'half-done.com')).not.toBeNull();
    const overview = await s.tool('serp_backlinks', {});
    expect(overview.body.profiles.map((p: { domain: string }) => p.domain).sort()).toEqual([
      'complete.example.com',
      'half-done.com',
    ]);
    expect((await activeRows(s))[0]).toMatchObject({ domain: 'half-done.com', incomplete: false });

    const again = await s.tool('add_competitor', { domain: 'half-done.com' });
    expect(again.body).toMatchObject({
      created: false,
      completed: false,
      competitor: { display_name: 'Half', color: '#00aa00' },
    });
    expect((await placesOf(s)).inflight).toBe(1);
  });

  it('completes an active row the old db_insert stored without the incomplete flag; a monitored one stays as it is', async () => {
    const s = await site('legacy.example.com');
    const now = new Date().toISOString();
    // As the old db_insert stored them: active, no `incomplete` field. The second has been monitored since.
    const fresh = await t.store.rows.insert(
      s.siteId,
      'cm_competitors',
      { domain: 'never-seen.com', active: true, added_at: now },
      now,
    );
    const monitored = await t.store.rows.insert(
      s.siteId,
      'cm_competitors',
      { domain: 'monitored-rival.com', active: true, added_at: now },
      now,
    );
    await t.store.backlinks.put(s.siteId, [
      {
        domain: 'monitored-rival.com',
        day: now.slice(0, 10),
        taken_at: now,
        data_source: 'sandbox',
        profile: {
          domain: 'monitored-rival.com',
          summary: { backlinks: 0, referring_domains: 0, rank: 0, spam_score: 0, broken_links: 0, dofollow_share: 0 },
          trend: [],
          anchors: [],
          top_linking_pages: [],
          referring_domains: [],
        },
      },
    ]);
    expect(fresh).not.toHaveProperty('incomplete');

    const added = await s.tool('add_competitor', { domain: 'never-seen.com' });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ created: false, completed: true, competitor: { id: fresh.id, active: true } });
    await t.stack.drain();
    expect(await t.store.backlinks.latest(s.siteId, 'never-seen.com')).not.toBeNull();
    expect(given(await t.store.rows.get(s.siteId, 'cm_competitors', fresh.id), 'the fresh competitor').incomplete).toBe(
      false,
    );
    expect((await s.tool('add_competitor', { domain: 'never-seen.com' })).body).toMatchObject({
      created: false,
      completed: false,
    });

    expect((await s.tool('add_competitor', { domain: 'monitored-rival.com' })).body).toMatchObject({
      created: false,
      completed: false,
      competitor: { id: monitored.id },
    });
  });

  it('updates display_name and color when an active domain is added again', async () => {
    const s = await site();
    const first = await s.tool('add_competitor', { domain: 'relabel.com', display_name: 'Old', color: '#111111' });
    const renamed = await s.tool('add_competitor', { domain: 'relabel.com', display_name: 'New name', color: '#ABC' });
    expect(renamed.body).toMatchObject({
      created: false,
      completed: false,
      competitor: { id: first.body.competitor.id, display_name: 'New name', color: '#aabbcc' },
    });
    const recolored = await s.tool('add_competitor', { domain: 'relabel.com', color: '#123456' });
    expect(recolored.body.competitor).toMatchObject({ display_name: 'New name', color: '#123456' });
    expect(await activeRows(s)).toEqual([expect.objectContaining({ display_name: 'New name', color: '#123456' })]);
  });

  it('stores active: false inactive and outside the cap; add_competitor then tracks it under the cap', async () => {
    freeBacklinkData(); // the cap, not what monitoring finds
    const s = await site();
    const dormant = await s.tool('db_insert', {
      table: 'cm_competitors',
      row: { domain: 'dormant.com', active: false, color: '#F0a' },
    });
    expect(dormant.status).toBe(200);
    expect(dormant.body.row).toMatchObject({ domain: 'dormant.com', active: false, color: '#ff00aa' });
    expect(dormant.body.warnings[0]).toContain('inactive');
    expect(await placesOf(s)).toEqual({ inflight: 0, leases: {}, groups: {} });
    expect((await s.tool('db_insert', { table: 'cm_competitors', row: { domain: 'dormant.com' } })).body.error).toBe(
      'already_exists',
    );

    for (const domain of rivals(10, 'full')) expect((await s.tool('add_competitor', { domain })).status).toBe(200);
    expect((await s.tool('add_competitor', { domain: 'dormant.com' })).status).toBe(409);
    await t.stack.drain();
    expect(await t.store.backlinks.latest(s.siteId, 'dormant.com')).toBeNull(); // inactive: not monitored

    const rows = await activeRows(s);
    await s.tool('db_delete', {
      table: 'cm_competitors',
      id: rows.find((r: { domain: string }) => r.domain === 'full-1.com').id,
    });
    const tracked = await s.tool('add_competitor', { domain: 'dormant.com' });
    expect(tracked.body).toMatchObject({
      created: false,
      completed: true,
      competitor: { id: dormant.body.row.id, active: true },
    });
    await t.stack.drain();
    expect(await t.store.backlinks.latest(s.siteId, 'dormant.com')).not.toBeNull();
    const places = await placesOf(s);
    const active = (await activeRows(s))
      .filter((r: { active: boolean }) => r.active)
      .map((r: { domain: string }) => r.domain);
    expect(Object.keys(places.leases).sort()).toEqual(active.sort());
    expect(places.inflight).toBe(10);
  });

  it('keeps the cap exact when inactive rows are tracked concurrently, each completed once', async () => {
    freeBacklinkData(); // the cap, not what monitoring finds
    const s = await site();
    for (const domain of rivals(8, 'held')) expect((await s.tool('add_competitor', { domain })).status).toBe(200);
    const sleepers = rivals(5, 'sleeper');
    for (const domain of sleepers)
      expect((await s.tool('db_insert', { table: 'cm_competitors', row: { domain, active: false } })).status).toBe(200);
    const replies = await Promise.all([...sleepers, ...sleepers].map((domain) => s.tool('add_competitor', { domain })));
    const tracked = replies.filter((r) => r.status === 200);
    expect(replies.filter((r) => r.status === 409)).toHaveLength(replies.length - tracked.length);
    const completed = tracked.filter((r) => r.body.completed).map((r) => r.body.competitor.domain);
    expect(completed).toHaveLength(2);
    expect(new Set(completed).size).toBe(2);
    for (const r of tracked) expect(completed).toContain(r.body.competitor.domain);
    const places = await placesOf(s);
    const active = (await activeRows(s))
      .filter((r: { active: boolean }) => r.active)
      .map((r: { domain: string }) => r.domain);
    expect(active).toHaveLength(10);
    expect(places.inflight).toBe(10);
    expect(Object.keys(places.leases).sort()).toEqual(active.sort());
  });
});

describe('serp_backlinks', () => {
  it('answers { empty: true } on a fresh site', async () => {
    const s = await site('fresh.example.org');
    const reply = await s.tool('serp_backlinks', {});
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ empty: true, cost_usd: 0 });
  });

  it("answers the site's links with { empty: true } too before any backlink data, and still looks up another domain's links live", async () => {
    const s = await site('fresh-links.example.org');
    for (const scope of ['site', 'https://fresh-links.example.org/']) {
      const reply = await s.tool('serp_backlinks', { scope, depth: 'links' });
      expect([scope, reply.status]).toEqual([scope, 200]);
      expect(reply.body).toEqual({ data_source: 'database', empty: true, cost_usd: 0, cached: true });
    }
    const other = await s.tool('serp_backlinks', { scope: 'someone-else.com', depth: 'links', limit: 5 });
    expect(other.body).toMatchObject({ depth: 'links', domain: 'someone-else.com', data_source: 'sandbox' });
    expect(other.body.links.length).toBeGreaterThan(0);

    await s.tool('add_competitor', { domain: 'rival-fresh.com' }); // queues the site's first monitoring run too
    await t.stack.drain();
    const links = await s.tool('serp_backlinks', { scope: 'site', depth: 'links' });
    expect(links.body).toMatchObject({ depth: 'links', domain: 'fresh-links.example.org' });
  });

  it('takes trend_months and limit as agents send them: fractions rounded down, numeric strings, still within bounds', async () => {
    const s = await site('counts.example.com');
    await s.tool('add_competitor', { domain: 'rival-counts.com' });
    await t.stack.drain();
    const monthsOf = async (trend_months: unknown) => {
      const reply = await s.tool('serp_backlinks', { scope: 'site', trend_months });
      expect([trend_months, reply.status]).toEqual([trend_months, 200]);
      return reply.body.trend[0].points.length as number;
    };
    expect(await monthsOf(2.9)).toBe(2);
    expect(await monthsOf('3')).toBe(3);
    expect(await monthsOf(' 4.5 ')).toBe(4);
    expect(await monthsOf('36')).toBeLessThanOrEqual(36);
    expect(await monthsOf(36.9)).toBeLessThanOrEqual(36);
    // null is left out, as for every other optional field: the default's months, as with none sent.
    expect(await monthsOf(null)).toBe(await monthsOf(undefined));
    const links = await s.tool('serp_backlinks', { scope: 'site', depth: 'links', limit: '3' });
    expect(links.body.links).toHaveLength(3);
    expect((await s.tool('serp_backlinks', { scope: 'site', depth: 'links', limit: 2.5 })).body.links).toHaveLength(2);

    for (const [body, path] of [
      [{ trend_months: 0.5 }, 'trend_months'],
      [{ trend_months: '0.9' }, 'trend_months'],
      [{ trend_months: '37' }, 'trend_months'],
      [{ trend_months: 'twelve' }, 'trend_months'],
      [{ trend_months: '' }, 'trend_months'],
      [{ trend_months: true }, 'trend_months'],
      [{ depth: 'links', scope: 'site', limit: '1001' }, 'limit'],
      [{ depth: 'links', scope: 'site', limit: 0.2 }, 'limit'],
      [{ depth: 'links', scope: 'site', limit: [5] }, 'limit'],
    ] as const) {
      const reply = await s.tool('serp_backlinks', body);
      expect([body, reply.status]).toEqual([body, 400]);
      expect(reply.body.issues[0].path).toBe(path);
    }
  });

  it('has an overview within seconds of add_competitor: profiles, trend within trend_months, a link gap, health flags', async () => {
    const s = await site('trail.example.net');
    await s.tool('add_competitor', { domain: 'rival-trail.com' });
    await s.tool('add_competitor', { domain: 'mountain-gear.com' });
    await t.stack.drain();

    const reply = await s.tool('serp_backlinks', { trend_months: 6 });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ data_source: 'sandbox', depth: 'overview', cost_usd: 0, cached: true });
    const domains = reply.body.profiles.map((p: { domain: string }) => p.domain);
    expect(domains.sort()).toEqual(['mountain-gear.com', 'rival-trail.com', 'trail.example.net']);
    const own = reply.body.profiles.find((p: { is_site: boolean }) => p.is_site);
    expect(own.summary).toMatchObject({
      backlinks: expect.any(Number),
      referring_domains: expect.any(Number),
      rank: expect.any(Number),
    });
    expect(own.summary.rank).toBeLessThanOrEqual(1000);

    const cutoff = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 5, 1))
      .toISOString()
      .slice(0, 7);
    for (const line of reply.body.trend) {
      expect(line.points.length).toBeGreaterThan(0);
      expect(line.points.length).toBeLessThanOrEqual(6);
      for (const point of line.points) expect(point.month >= cutoff).toBe(true);
    }

    expect(reply.body.gap.length).toBeGreaterThan(0);
    const siteLinks = new Set(sandboxReferringDomains('trail.example.net'));
    for (const g of reply.body.gap) {
      expect(siteLinks.has(g.domain)).toBe(false);
      expect(g.links_to.length).toBeGreaterThan(0);
      for (const rival of g.links_to) expect(sandboxReferringDomains(rival)).toContain(g.domain);
    }
    const order = reply.body.gap.map((g: { links_to: string[]; rank: number }) => [g.links_to.length, g.rank]);
    expect(order).toEqual([...order].sort((a, b) => b[0] - a[0] || b[1] - a[1]));

    // The flags are the core rules over the shown profiles (the sandbox has no trend in the reply's health, so rebuild).
    const full = await Promise.all(domains.map((d: string) => t.store.backlinks.latest(s.siteId, d)));
    const byDomain = new Map(full.map((snap) => [given(snap, 'the snap').domain, given(snap, 'the snap').profile]));
    const competitors = ['mountain-gear.com', 'rival-trail.com'].map((d) => byDomain.get(d));
    expect(reply.body.health).toEqual(healthFlags(byDomain.get('trail.example.net'), competitors));
    expect(reply.body.health).toEqual(own.health);

    const siteOnly = await s.tool('serp_backlinks', { scope: 'site' });
    expect(siteOnly.body.profiles.map((p: { domain: string }) => p.domain)).toEqual(['trail.example.net']);
  });

  it('lists at most 1000 links by authority; looks up an untracked domain live without tracking it; refuses values out of range', async () => {
    const s = await site('links.example.com');
    await s.tool('add_competitor', { domain: 'rival-links.com' });
    await t.stack.drain();

    const links = await s.tool('serp_backlinks', { scope: 'site', depth: 'links', limit: 1000 });
    expect(links.status).toBe(200);
    expect(links.body).toMatchObject({ depth: 'links', domain: 'links.example.com' });
    expect(links.body.links.length).toBeGreaterThan(0);
    expect(links.body.links.length).toBeLessThanOrEqual(1000);
    const authority = links.body.links.map((l: { authority: number }) => l.authority);
    expect(authority).toEqual([...authority].sort((a, b) => b - a));
    for (const a of authority) expect(a >= 0 && a <= 1000).toBe(true);
    expect((await s.tool('serp_backlinks', { scope: 'site', depth: 'links' })).body.links.length).toBeLessThanOrEqual(
      100,
    );

    const rowsBefore = await activeRows(s);
    const lookup = await s.tool('serp_backlinks', { scope: 'https://www.untracked-store.com/shop' });
    expect(lookup.status).toBe(200);
    expect(lookup.body.profiles).toEqual([
      expect.objectContaining({ domain: 'untracked-store.com', is_competitor: false, snapshot_at: null }),
    ]);
    expect(await activeRows(s)).toEqual(rowsBefore);
    const usage = (await t.call('GET', '/v1/usage', undefined, { key: s.key })).body;
    expect(usage.by_tool).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tool: 'serp_backlinks', provider: 'sandbox' }),
        expect.objectContaining({ tool: 'monitor', provider: 'sandbox' }),
      ]),
    );

    for (const [body, path] of [
      [{ trend_months: 37 }, 'trend_months'],
      [{ trend_months: 0 }, 'trend_months'],
      [{ depth: 'links', scope: 'site', limit: 1001 }, 'limit'],
      [{ limit: 10 }, 'limit'],
      [{ depth: 'links' }, 'scope'],
      [{ depth: 'pages' }, 'depth'],
      [{ scope: 'not a domain' }, 'scope'],
    ] as const) {
      const reply = await s.tool('serp_backlinks', body);
      expect([path, reply.status]).toEqual([path, 400]);
      expect(reply.body.issues[0].path).toBe(path);
    }
  });
});
