import { bulkNumbersPrice, Meter, SandboxBacklinkData, type BacklinkProfile } from '@cm/providers';
import { sandboxReferringDomains } from '../../packages/providers/src/sandbox/backlinks';
import { given } from '../helpers/client';

const NOW = new Date('2026-11-21T09:00:00Z');
const sandbox = new SandboxBacklinkData(() => NOW);
const profileOf = (domain: string) => sandbox.profile(domain, new Meter());

/** An anchor naming the domain's brand (the label before the suffix), as the health flags judge it. */
const isBrand = (anchor: string, domain: string) =>
  anchor
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '')
    .includes(given(domain.split('.')[0], 'the domain label').replace(/[^a-z0-9]+/g, ''));
const hostOf = (url: string) => new URL(url).hostname;
const count = (test: (p: BacklinkProfile) => boolean) => profiles.filter(test).length;

const DOMAINS = Array.from({ length: 200 }, (_, i) => `site-${i}.com`);
let profiles: BacklinkProfile[];
beforeAll(async () => {
  profiles = await Promise.all(DOMAINS.map(profileOf));
});

describe('sandbox backlink profiles', () => {
  it('are deterministic for a domain and differ between domains', async () => {
    expect(await profileOf('example.com')).toEqual(await profileOf('example.com'));
    expect(await sandbox.links('example.com', 200, new Meter())).toEqual(
      await sandbox.links('example.com', 200, new Meter()),
    );
    const [a, b] = [await profileOf('example.com'), await profileOf('example.org')];
    expect(a.summary).not.toEqual(b.summary);
    expect(a.referring_domains).not.toEqual(b.referring_domains);
    expect(new Set(profiles.map((p) => JSON.stringify(p.summary))).size).toBe(profiles.length);
  });

  it('keep every figure in a realistic range, and the parts consistent with the summary', () => {
    for (const p of profiles) {
      const { summary } = p;
      const full = sandboxReferringDomains(p.domain);
      expect(summary.referring_domains).toBe(full.length);
      expect(summary.referring_domains).toBeGreaterThanOrEqual(30);
      expect(summary.referring_domains).toBeLessThanOrEqual(200);
      expect(summary.backlinks).toBeGreaterThanOrEqual(summary.referring_domains);
      expect(Number.isInteger(summary.rank) && summary.rank >= 0 && summary.rank <= 1000).toBe(true);
      expect(summary.spam_score).toBeGreaterThanOrEqual(0);
      expect(summary.spam_score).toBeLessThanOrEqual(60);
      expect(summary.dofollow_share).toBeGreaterThanOrEqual(0.3);
      expect(summary.dofollow_share).toBeLessThanOrEqual(0.9);
      expect(Number.isInteger(summary.broken_links) && summary.broken_links >= 0).toBe(true);

      // The strongest ≤ 100 of the full set, by rank; with the whole set listed, its backlinks add up.
      expect(p.referring_domains).toHaveLength(Math.min(100, full.length));
      expect(
        p.referring_domains.every((r) => full.includes(r.domain) && r.domain !== p.domain && r.backlinks >= 1),
      ).toBe(true);
      expect(p.referring_domains.map((r) => r.rank)).toEqual(
        [...p.referring_domains.map((r) => r.rank)].sort((x, y) => y - x),
      );
      if (full.length <= 100) expect(p.referring_domains.reduce((s, r) => s + r.backlinks, 0)).toBe(summary.backlinks);

      expect(p.anchors.length).toBeGreaterThan(0);
      expect(p.anchors.length).toBeLessThanOrEqual(20);
      expect(p.anchors.reduce((s, a) => s + a.backlinks, 0)).toBeLessThanOrEqual(summary.backlinks);
      for (const a of p.anchors) expect(a.share).toBeCloseTo(a.backlinks / summary.backlinks, 4);
      expect(p.anchors.map((a) => a.backlinks)).toEqual([...p.anchors.map((a) => a.backlinks)].sort((x, y) => y - x));
      expect(p.anchors.some((a) => isBrand(a.anchor, p.domain))).toBe(true);
      expect(p.anchors.some((a) => !isBrand(a.anchor, p.domain))).toBe(true);
    }
  });

  it('reach every health flag across domains', () => {
    const someButNotAll = (test: (p: BacklinkProfile) => boolean) => {
      expect(count(test)).toBeGreaterThan(10);
      expect(count(test)).toBeLessThan(profiles.length - 10);
    };
    someButNotAll((p) => p.summary.spam_score < 15);
    someButNotAll((p) => p.summary.backlinks / p.summary.referring_domains < 3);
    someButNotAll((p) => p.summary.broken_links === 0);
    someButNotAll((p) => p.summary.dofollow_share < 0.5);
    someButNotAll((p) => p.anchors.some((a) => a.share > 0.3 && !isBrand(a.anchor, p.domain)));
    someButNotAll((p) => given(p.anchors[0], 'the p.anchors[0]').share > 0.3);
    // Velocity differs between domains, so one can trail its competitors.
    expect(
      new Set(profiles.map((p) => p.trend.slice(-3).reduce((s, t) => s + t.new_referring_domains, 0))).size,
    ).toBeGreaterThan(20);
  });

  it('trend over 36 months, oldest first, ending this month at the summary', () => {
    for (const p of profiles) {
      expect(p.trend).toHaveLength(36);
      expect(given(p.trend[0], 'the p.trend[0]').month).toBe('2023-12');
      expect(p.trend.at(-1)).toMatchObject({
        month: '2026-11',
        backlinks: p.summary.backlinks,
        referring_domains: p.summary.referring_domains,
        rank: p.summary.rank,
      });
      const coherent = p.trend.every(
        (point, i) =>
          Number.isInteger(point.new_referring_domains) &&
          point.new_referring_domains >= 0 &&
          point.referring_domains > 0 &&
          // New referring domains cover at least the month's growth (the rest replaces lost ones).
          (i === 0 ||
            point.new_referring_domains >=
              point.referring_domains - given(p.trend[i - 1], 'the p.trend[i - 1]').referring_domains),
      );
      expect(coherent).toBe(true);
    }
    const growing = count((p) => given(p.trend[0], 'the p.trend[0]').referring_domains < p.summary.referring_domains);
    expect(growing).toBeGreaterThan(50);
    expect(growing).toBeLessThan(profiles.length - 20);
  });

  it('trend ends with the current month on the real clock', async () => {
    const { trend } = await new SandboxBacklinkData().profile('example.com', new Meter());
    const now = new Date();
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 35, 1)).toISOString().slice(0, 7);
    expect(given(trend.at(-1), 'the item').month).toBe(now.toISOString().slice(0, 7));
    expect(given(trend[0], 'the trend[0]').month).toBe(first);
  });
});

describe('sandbox linking pages', () => {
  it('come from the referring domains to the domain, strongest first, and the profile shows the top 20', async () => {
    for (const p of profiles.slice(0, 20)) {
      const links = await sandbox.links(p.domain, 1000, new Meter());
      const full = new Set(sandboxReferringDomains(p.domain));
      expect(links).toHaveLength(Math.min(1000, p.summary.backlinks));
      expect(links.map((l) => l.authority)).toEqual([...links.map((l) => l.authority)].sort((x, y) => y - x));
      const anchors = new Set(p.anchors.map((a) => a.anchor));
      const wrong = links.filter(
        (l) =>
          !full.has(hostOf(l.url_from)) ||
          hostOf(l.url_to) !== p.domain ||
          !(Number.isInteger(l.authority) && l.authority >= 0 && l.authority <= 1000) ||
          !anchors.has(l.anchor) ||
          !/^20(19|2\d)-\d\d-\d\d$/.test(l.first_seen ?? ''),
      );
      expect(wrong).toEqual([]);
      expect(new Set(links.map((l) => l.url_from)).size).toBe(links.length);
      expect(p.top_linking_pages).toEqual(links.slice(0, 20));
    }
  });

  it('honour a limit up to 1000 for a big profile', async () => {
    const big = given(
      profiles.find((p) => p.summary.backlinks > 1000),
      'the find',
    );
    expect(big).toBeDefined();
    expect(await sandbox.links(big.domain, 1000, new Meter())).toHaveLength(1000);
    expect(await sandbox.links(big.domain, 37, new Meter())).toHaveLength(37);
  });
});

describe('sandbox link gap', () => {
  const site = 'site-0.com';
  const competitors = ['site-1.com', 'site-2.com', 'site-3.com'];

  it('lists domains linking to some competitors and not to the site, with exactly the competitors each links to', async () => {
    const own = new Set(sandboxReferringDomains(site));
    const sets = competitors.map((c) => new Set(sandboxReferringDomains(c)));
    const union = new Set(sets.flatMap((s) => [...s]).filter((d) => !own.has(d) && d !== site));
    const gap = await sandbox.linkGap(site, competitors, 1000, new Meter());

    expect(gap.length).toBe(union.size);
    expect(gap.length).toBeGreaterThan(0);
    for (const g of gap) {
      expect(own.has(g.domain)).toBe(false);
      expect(g.links_to).toEqual(competitors.filter((_, i) => given(sets[i], 'the sets[i]').has(g.domain)));
    }
    expect(gap.some((g) => g.links_to.length > 1)).toBe(true);
  });

  it('orders by competitors linked, then rank, cuts to the limit, and ranks a domain the same everywhere', async () => {
    const gap = await sandbox.linkGap(site, competitors, 1000, new Meter());
    for (let i = 1; i < gap.length; i++) {
      const [a, b] = [given(gap[i - 1], 'the gap[i - 1]'), given(gap[i], 'the gap[i]')];
      expect(
        a.links_to.length > b.links_to.length || (a.links_to.length === b.links_to.length && a.rank >= b.rank),
      ).toBe(true);
    }
    expect(await sandbox.linkGap(site, competitors, 15, new Meter())).toEqual(gap.slice(0, 15));

    const listed = new Map(
      (await Promise.all(competitors.map(profileOf))).flatMap((p) =>
        p.referring_domains.map((r) => [r.domain, r.rank] as const),
      ),
    );
    const seen = gap.filter((g) => listed.has(g.domain));
    expect(seen.length).toBeGreaterThan(0);
    for (const g of seen) expect(g.rank).toBe(listed.get(g.domain));
  });
});

describe('SandboxBacklinkData', () => {
  it('is labelled sandbox and records each call at cost 0', async () => {
    const meter = new Meter();
    expect(sandbox.name).toBe('sandbox');
    await sandbox.profile('example.com', meter);
    await sandbox.links('example.com', 10, meter);
    await sandbox.linkGap('example.com', ['example.org'], 10, meter);
    expect(meter.calls).toEqual([
      { provider: 'sandbox', endpoint: 'backlinks_profile', cost_usd: 0 },
      { provider: 'sandbox', endpoint: 'backlinks_links', cost_usd: 0 },
      { provider: 'sandbox', endpoint: 'backlinks_link_gap', cost_usd: 0 },
    ]);
  });
});

describe('sandbox daily numbers, trend and detail', () => {
  it("answer as the profile does: the numbers' summary, trend and detail are the profile's parts, deterministic", async () => {
    const profile = await profileOf('example.com');
    const numbers = given(
      (await sandbox.numbers(['example.com', 'example.org'], new Meter())).get('example.com'),
      'the entry',
    );
    expect(numbers.summary).toEqual(profile.summary);
    expect(await sandbox.trend('example.com', new Meter())).toEqual(profile.trend);
    expect(await sandbox.detail('example.com', profile.summary.backlinks, new Meter())).toEqual({
      anchors: profile.anchors,
      top_linking_pages: profile.top_linking_pages,
      referring_domains: profile.referring_domains,
    });
    // New and lost of the month so far: a few percent of the totals, the same all month.
    expect(numbers.new_referring_domains).toBeLessThanOrEqual(
      Math.max(1, Math.round(profile.summary.referring_domains * 0.04)),
    );
    expect((await sandbox.numbers(['example.com'], new Meter())).get('example.com')).toEqual(numbers);
  });

  it('bill one line for a batch of numbers, at the three bulk requests of its rows with list prices, and refuse more than 100', async () => {
    const meter = new Meter({ listPrices: true });
    await sandbox.numbers(['a.com', 'b.com', 'c.com'], meter);
    expect(meter.calls).toEqual([
      { provider: 'sandbox', endpoint: 'backlinks_numbers', cost_usd: bulkNumbersPrice(3), simulated: true },
    ]);
    expect(sandbox.numbersEndpoints).toEqual(['backlinks_numbers']);
    const many = Array.from({ length: 101 }, (_v, i) => `d${i}.com`);
    expect(() => sandbox.numbers(many, new Meter())).toThrow('at most 100 domains');
  });
});
