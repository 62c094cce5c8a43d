import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { LIMITS, type BudgetView as Budget } from '@cm/contract';
import { outlineColor, SITE_COLOR } from '../../packages/dashboard/app/colors';
import { fmtNum, fmtPct, fmtShare, fmtTime, fmtUsd, SIMULATED } from '../../packages/dashboard/app/format';
import type { Device, RankHistory, SearchTraffic } from '../../packages/dashboard/app/types';
import {
  canvasPixels,
  chromiumFound,
  computedStyle,
  launchBrowser,
  watchedPage,
  type WatchedPage,
} from '../helpers/browser';
import { describeWith } from '../helpers/platform';
import { article, question, startTestStack, type TestStack } from '../helpers/local';
import { drawnOverviewStates, drawnVisibilityDays, overviewStates, siteOf } from '../helpers/history-figures';
import { trackTopicFor } from '../helpers/rank-seed';
import { drawnLists, drawnTotals, expectedLists, expectedTotals, seedSearchTraffic } from '../helpers/traffic-figures';

/*
 * The dashboard in a real headless Chromium, against a local stack seeded through the public API: every
 * view shows the seeded data in the competitors' colours and names, viewing costs nothing, paid actions
 * ask first, and the page talks to nothing but its own origin under its CSP. A second stack, whose
 * sandbox charges list prices, shows the budget at work: simulated money apart from billed, and a 402.
 * The stacks run one after the other: a process has one stack's configuration at a time.
 */

const SHOTS = join(__dirname, '..', '..', 'test-output', 'dashboard');
/** Days of rank history the seed checks. */
const HISTORY_DAYS = 7;
/** Days of rank history the landscape view asks for. */
const VIEW_DAYS = 30;
const DOCS_SHOTS = join(__dirname, '..', '..', 'docs', 'screenshots');
const README_SHOT = join(DOCS_SHOTS, 'dashboard-landscape.png');
/** The landscape's visibility and AI Overviews panels, as docs/api/dashboard.md shows them. */
const VISIBILITY_SHOT = join(DOCS_SHOTS, 'dashboard-visibility.png');
const AI_OVERVIEWS_SHOT = join(DOCS_SHOTS, 'dashboard-ai-overviews.png');
/** The Search traffic view's figures and refresh queue, as docs/api/dashboard.md shows them. */
const TRAFFIC_SHOT = join(DOCS_SHOTS, 'dashboard-search-traffic.png');

const COMPETITORS = [
  { domain: 'runfast.com', display_name: 'RunFast', color: '#dc2626' },
  { domain: 'shoe-hub.com', display_name: 'Shoe Hub', color: '#16a34a' },
  // Light: under 3:1 against white, so it must be drawn with an outline.
  { domain: 'sunny-soles.com', display_name: 'Sunny Soles', color: '#fde047' },
];
const SEEDS = [
  'running shoes',
  'trail running shoes',
  'best running shoes',
  'running shoes for flat feet',
  'marathon shoes',
  'cushioned running shoes',
];
/** Ideas research in keywords mode stored for the topic's page: shown apart, never committed by it. */
const IDEAS = ['road shoes', 'racing flats', 'carbon plate shoes'];
const SITE = 'demo.example.com';
/** Two of the site's pages the seed makes rank together for SEEDS[1] on its newest check: cannibalisation. */
const CANNIBALISED = [`https://${SITE}/articles/trail-shoes`, `https://${SITE}/articles/trail-shoes-guide`];
/** The competitor the tests add through the form, then stop. */
const ADDED = { domain: 'fleet-feet.com', color: '#0e7490', display_name: 'Fleet Feet' };

let t: TestStack;
let browser: Browser;
let tour: WatchedPage;
let page: Page;
let gap: { domain: string }[];
let linkTarget: { id: string; title: string };
const ledger = async () => {
  const { calls, by_tool } = (await t.call('GET', '/v1/usage')).body as {
    calls: number;
    by_tool: { tool: string; calls: number }[];
  };
  return { calls, by_tool };
};
let usageBefore: Awaited<ReturnType<typeof ledger>>;
/** The topic's rank history as the landscape view asks for it, of each device, read through the API. */
let histories: Record<Device, RankHistory>;

async function tool(name: string, body: unknown) {
  const reply = await t.call('POST', `/v1/tools/${name}`, body);
  if (reply.status !== 200) throw new Error(`${name} answered ${reply.status}: ${reply.text}`);
  return reply.body;
}

/** A topic with committed keywords and their SERPs, ideas researched for its page, three tracked competitors with snapshots, and pages one of which relink hides a link of. */
async function seed() {
  for (const competitor of COMPETITORS) await tool('add_competitor', competitor);
  const topic = (await tool('db_insert', { table: 'cm_topics', row: { name: 'Running shoes' } })).row;
  await tool('get_keywords', { topic_id: topic.id, seeds: SEEDS });
  const guide = (
    await tool('db_insert', {
      table: 'cm_pages',
      row: { title: 'Running shoes', topic_id: topic.id, primary_keyword: SEEDS[0] },
    })
  ).row;
  await tool('research', { mode: 'keywords', seed: IDEAS.join(', '), page_id: guide.id });
  // Competitors first: the sandbox places tracked domains in the SERPs it pulls.
  await tool('serp_landscape', { topic_id: topic.id, depth: 'list' });
  // A week of rank checks, the topic tracked daily on desktop, its page on mobile.
  await trackTopicFor(t, t.siteId, topic.id, HISTORY_DAYS, [{ type: 'page', id: guide.id, device: 'mobile' }]);
  const newest = (await t.store.ranks.latest(t.siteId, 'US/en', SEEDS[1]!, 1, 'desktop')).rows[0];
  if (!newest) throw new Error(`no rank row of ${SEEDS[1]}`);
  await t.store.ranks.put(t.siteId, [
    { ...newest, site_results: CANNIBALISED.map((url, i) => ({ url, position: 4 + 5 * i })) },
  ]);
  const target = (await t.call('POST', '/articles', article('retired-model', { title: 'The retired model' }))).body
    .id as string;
  await t.call(
    'POST',
    '/articles',
    article('shoe-guide', { title: 'Running shoe guide', related_article_ids: [target] }),
  );
  await t.call('POST', '/questions', question('which-shoe'));
  await t.stack.drain();
  expect(
    (await t.call('POST', '/api/content/notify', { id: target, type: 'article', action: 'deleted' })).body.relink,
  ).toBe('queued');
  await t.stack.drain();
  linkTarget = { id: target, title: 'The retired model' };
  gap = (await tool('serp_backlinks', { scope: 'all', depth: 'overview', trend_months: 12 })).gap;
  const history = async (device: Device) =>
    (await tool('serp_landscape', { topic_id: topic.id, depth: 'metrics', history_days: VIEW_DAYS, device }))
      .history as RankHistory;
  histories = { desktop: await history('desktop'), mobile: await history('mobile') };
}

/**
 * Goes to a view by its nav link (as a user would) and waits until it has rendered; its screenshot is
 * `shot`.png, none for `null` (a full page's screenshot takes longer than the view's render).
 */
async function open(view: string, shot: string | null = view) {
  await page.click(`nav a[data-view="${view}"]`);
  await page.waitForSelector(`.view[data-view="${view}"]:not([aria-busy])`);
  if (shot !== null) await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: true });
}

/** A phone's widths: the narrowest phones in use (320) and a common one (390). */
const PHONE_WIDTHS = [390, 320] as const;

/**
 * At `width` px, each view is no wider than the screen and the header's Forget key is in sight; the
 * page is left as it was, at its desktop width on the view it showed.
 */
async function expectViewsFit(width: number, views: readonly string[]) {
  const shown = (await page.locator('.view').getAttribute('data-view'))!;
  await page.setViewportSize({ width, height: 844 });
  try {
    for (const view of views) {
      await open(view, `${view}-${width}`);
      const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
      expect([view, scrollWidth]).toEqual([view, width]);
      const forget = page.locator('button:text("Forget key")');
      const box = await forget.boundingBox();
      expect([view, await forget.isVisible(), box && box.x >= 0 && box.x + box.width <= width]).toEqual([
        view,
        true,
        true,
      ]);
    }
  } finally {
    // Back as it was, with no screenshot: one under the view's name would overwrite what its own test took.
    await page.setViewportSize({ width: 1280, height: 900 });
    await open(shown, null);
  }
}

/** The text of each match, shown or not (a table alternative may sit in a closed <details>). */
const texts = async (selector: string) => (await page.locator(selector).allTextContents()).map((text) => text.trim());
const hexToRgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

/** A fresh page (its own sessionStorage) on the dashboard of `t`'s demo site, the landscape rendered. */
async function openDashboard() {
  // A site with no Search Console connection answers its GET with 404, as documented: the traffic view reads that.
  tour = await watchedPage(browser, { notFoundAnswers: ['/v1/search-console'] });
  page = tour.page;
  await page.goto(`${t.url}/dashboard#key=${encodeURIComponent(t.key)}`);
  await page.waitForSelector('.view[data-view="landscape"]:not([aria-busy])');
}

/** The tool calls the page made, with what it sent. */
const sent = (name: string) =>
  tour.sent.filter((s) => s.url.endsWith(`/v1/tools/${name}`)).map((s) => s.body as Record<string, unknown>);
const budget = async () => (await t.call('GET', '/v1/budget')).body as Budget;

describeWith(chromiumFound, 'the dashboard in a browser', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchBrowser();
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
  });

  describe('on the free sandbox', () => {
    beforeAll(async () => {
      t = await startTestStack();
      await seed();
      usageBefore = await ledger();
      await openDashboard();
    }, 60_000);

    afterAll(async () => {
      await tour?.context.close();
      await t?.stop();
    });

    describe('the dashboard, viewing', () => {
      it('keeps the key in sessionStorage only and takes the #key= fragment out of the URL', async () => {
        expect(page.url()).not.toContain('key=');
        expect(page.url()).not.toContain(t.key);
        expect(await page.evaluate('Object.values(sessionStorage)')).toEqual([t.key]);
        expect(await page.evaluate('localStorage.length')).toBe(0);
        expect(await page.evaluate('document.cookie')).toBe('');
      });

      it('landscape: share of voice names the competitors by display_name in their colours, the light one outlined, and highlights the site', async () => {
        for (const c of COMPETITORS) {
          const row = page.locator(`[data-table="sov"] tr.is-competitor:has([data-domain="${c.domain}"])`);
          expect(await row.locator('.domain-name').innerText()).toBe(c.display_name);
          const swatch = row.locator('.swatch');
          expect(await computedStyle(swatch, 'backgroundColor')).toBe(hexToRgb(c.color));
          expect(await computedStyle(swatch, 'borderTopColor')).toBe(hexToRgb(outlineColor(c.color)));
        }
        // The light colour gets a darker outline; a dark one is its own border.
        expect(outlineColor('#fde047')).not.toBe('#fde047');
        expect(outlineColor('#dc2626')).toBe('#dc2626');
        const site = page.locator('[data-table="sov"] tr.is-site');
        expect(await site.count()).toBe(1);
        expect(await site.innerText()).toContain(SITE);
        expect(await site.innerText()).toContain('your site');

        const pixels = await canvasPixels(page, 'canvas[data-chart="sov"]', [
          ...COMPETITORS.map((c) => c.color),
          SITE_COLOR,
        ]);
        for (const [color, count] of Object.entries(pixels)) expect([color, count > 50]).toEqual([color, true]);
        expect(await page.locator('canvas[data-chart="sov"]').getAttribute('aria-label')).toContain('RunFast');

        // Once the bars are seen drawn: a canvas is blank for a frame while it is sized.
        await page.screenshot({ path: join(SHOTS, 'landscape.png'), fullPage: true });
        const box = (await page.locator('.panel:has(h2:text-is("Share of voice"))').boundingBox())!;
        await page.screenshot({
          path: README_SHOT,
          fullPage: true,
          clip: { x: 0, y: 0, width: 1280, height: Math.ceil(box.y + box.height + 24) },
        });
      });

      it('landscape: share of voice over time in the competitors’ colours, winners and losers, and each keyword’s position history opened from its row', async () => {
        const pixels = await canvasPixels(page, 'canvas[data-chart="sov-history"]', [
          ...COMPETITORS.map((c) => c.color),
          SITE_COLOR,
        ]);
        for (const [color, count] of Object.entries(pixels)) expect([color, count > 20]).toEqual([color, true]);
        expect(await page.locator('.coverage-line').innerText()).toContain(`${HISTORY_DAYS} of 30 days have rank data`);
        const visibility = page.locator('[data-table="visibility"] tr.is-competitor');
        expect(await visibility.count()).toBe(COMPETITORS.length);
        expect(await page.locator('[data-table="movers"] tbody tr').count()).toBeGreaterThan(0);
        // A keyword's row opens its positions day by day (the view asks for 30 days; the seed checked the last 7).
        const keyword = (await texts('[data-table="keywords"] tbody tr td:first-child'))[0]!;
        const history = page.locator(`details.position-history[data-history="${keyword}"]`);
        expect(await history.locator('[data-table="positions"]').isVisible()).toBe(false);
        await page.click(`[data-table="keywords"] button[data-open-history="${keyword}"]`);
        expect(await history.locator('[data-table="positions"]').isVisible()).toBe(true);
        const days = await texts(`details[data-history="${keyword}"] [data-table="positions"] tbody tr td:first-child`);
        expect(days).toHaveLength(30);
        expect(days[0]).toBe(new Date().toISOString().slice(0, 10));
        expect(await history.locator('[data-table="positions"] th').allInnerTexts()).toEqual(
          expect.arrayContaining(['Day', ...COMPETITORS.map((c) => c.display_name)]),
        );
        // The published-pages section says what would show there.
        expect(await page.locator('.panel:has(h2:text-is("Published pages"))').innerText()).toContain('published_id');
      });

      it('landscape: names the keyword two of the site’s URLs share (cannibalisation), each URL with its share', async () => {
        const table = page.locator('[data-table="cannibalisation"]');
        expect(await table.locator('th').allInnerTexts()).toEqual([
          'Keyword',
          'URL',
          'Share',
          'Days best',
          'Days together',
          'Swaps',
        ]);
        const rows = (await table.locator('tbody tr').allInnerTexts()).map((row) => row.split('\t'));
        // Both URLs, each once with its share (the site's other days for the keyword, if any, add a URL of their own).
        for (const url of CANNIBALISED)
          expect(rows.filter((cells) => cells[1] === url).map((cells) => cells[2])).toEqual([
            expect.stringMatching(/^\d+(\.\d)?%$/),
          ]);
        expect(rows.every((cells) => cells[0] === SEEDS[1])).toBe(true);
      });

      it('landscape: labels visibility as what it is, estimated clicks a day and a month (CTR × monthly volume)', async () => {
        const visibility = page.locator('[data-table="visibility"]');
        expect(await visibility.locator('th').allInnerTexts()).toEqual([
          'Domain',
          'Visibility',
          'Clicks a day (est.)',
          'Clicks a month (est.)',
          'Share of voice',
        ]);
        expect(await visibility.locator('caption').innerText()).toMatch(
          /estimated clicks a day and estimated clicks a month/,
        );
        expect(await page.locator('[data-table="movers"] caption').innerText()).toMatch(/estimated clicks a month/);
        // Every "clicks a day" the view shows says it is an estimate.
        const said = (await page.locator('.view').innerText()).match(/[^\n]*clicks a day[^\n]*/gi) ?? [];
        expect(said.length).toBeGreaterThan(0);
        for (const line of said) expect([line, /estimate|est\./i.test(line)]).toEqual([line, true]);
      });

      it('landscape: visibility per day (100 % = first everywhere) and the estimated clicks a day are the history’s, on its device and curve', async () => {
        const history = histories.desktop;
        const site = siteOf(history);
        const lines = history.visibility.filter((v) => v.is_site || v.is_competitor);
        // The table beside the chart: a row a day, newest first, each tracked domain's visibility, then the site's clicks.
        expect(await drawnVisibilityDays(page)).toEqual(
          history.days
            .map((day, i) => [
              day,
              ...lines.map((l) => fmtPct(l.visibility_pct[i])),
              fmtNum(site.estimated_clicks_per_day[i]),
            ])
            .reverse(),
        );
        expect(site.visibility_pct.filter((v) => v !== null)).toHaveLength(HISTORY_DAYS);
        const latest = site.visibility_pct.findLastIndex((v) => v !== null);
        const stats = page.locator('[data-visibility]');
        expect(await stats.locator('[data-field="visibility"]').innerText()).toBe(fmtPct(site.visibility_pct[latest]));
        expect(await stats.locator('[data-field="clicks"]').innerText()).toBe(
          fmtNum(site.estimated_clicks_per_day[latest]),
        );
        expect(await stats.innerText()).toContain('Estimated clicks a day');
        expect(await stats.locator('[data-field="curve"]').innerText()).toBe(history.ctr_curve);
        expect(await stats.locator('[data-field="device"]').innerText()).toBe('Desktop');
        const pixels = await canvasPixels(page, 'canvas[data-chart="visibility"]', [
          ...COMPETITORS.map((c) => c.color),
          SITE_COLOR,
        ]);
        for (const [color, count] of Object.entries(pixels)) expect([color, count > 20]).toEqual([color, true]);
        await page.locator('.panel:has(h2:text-is("Visibility"))').screenshot({ path: VISIBILITY_SHOT });
      });

      it('landscape: each keyword’s AI Overview a marker a day (shown, citing the site or not) and AI Overview share beside organic, as the history says', async () => {
        const history = histories.desktop;
        const expected = overviewStates(history);
        expect(Object.keys(expected).sort()).toEqual([...SEEDS].sort());
        // The sandbox shows overviews and cites the site on some days: the markers are drawn from real figures.
        const states = Object.values(expected).flat();
        expect(states.filter((s) => s === 'cited').length).toBeGreaterThan(0);
        expect(states.filter((s) => s === 'shown' || s === 'absent').length).toBeGreaterThan(0);
        expect(await drawnOverviewStates(page)).toEqual(expected);
        // A keyword's position history shows its overview beside the positions, day by day, newest first.
        const keyword = SEEDS[0]!;
        const cells = await page
          .locator(`details[data-history="${keyword}"] [data-table="positions"] tbody tr [data-aio]`)
          .evaluateAll((marks) => marks.map((mark) => mark.getAttribute('data-aio')));
        expect(cells).toEqual([...expected[keyword]!].reverse());
        // AI Overview share of voice beside organic, on the latest day an overview was recorded.
        const latest = history.ai_overviews.shown.findLastIndex((n) => n !== null);
        const ai = history.ai_overviews.domains.find((d) => d.is_site)!;
        const row = page.locator('[data-table="ai-sov"] tr.is-site td');
        expect((await row.allInnerTexts()).slice(1)).toEqual([
          fmtShare(ai.sov[latest]),
          String(ai.cited[latest]),
          fmtShare(siteOf(history).sov[latest]),
        ]);
        expect(await page.locator('[data-table="ai-sov"] tr.is-competitor').count()).toBe(COMPETITORS.length);
        const pixels = await canvasPixels(page, 'canvas[data-chart="ai-sov-history"]', [SITE_COLOR]);
        expect(pixels[SITE_COLOR]).toBeGreaterThan(20);
        await page.locator('.panel:has(h2:text-is("AI Overviews"))').screenshot({ path: AI_OVERVIEWS_SHOT });
      });

      it('landscape: the device switch reads the other device’s history (free), and its figures are drawn', async () => {
        expect(await page.inputValue('#device')).toBe('desktop');
        await page.selectOption('#device', 'mobile');
        await page.waitForSelector('.view[data-view="landscape"]:not([aria-busy]) [data-visibility]');
        expect(sent('serp_landscape').at(-1)).toMatchObject({ device: 'mobile', history_days: VIEW_DAYS });
        expect(await page.inputValue('#device')).toBe('mobile');
        const history = histories.mobile;
        expect(history.device).toBe('mobile');
        expect(await page.locator('[data-visibility] [data-field="device"]').innerText()).toBe('Mobile');
        expect(await page.locator('.coverage-line').innerText()).toContain('Checks on mobile');
        // Only the page tracked on mobile has checks there: its keyword's figures, not the desktop ones.
        const recorded = Object.entries(overviewStates(history)).filter(([, days]) =>
          days.some((d) => d !== 'unknown'),
        );
        expect(recorded.map(([keyword]) => keyword)).toEqual([SEEDS[0]]);
        expect(await drawnOverviewStates(page)).toEqual(overviewStates(history));
        const site = siteOf(history);
        expect((await drawnVisibilityDays(page)).map((row) => row[1])).toEqual(
          site.visibility_pct.map((v) => fmtPct(v)).reverse(),
        );
        await page.selectOption('#device', 'desktop');
        await page.waitForSelector('.view[data-view="landscape"]:not([aria-busy]) [data-visibility]');
        expect(await page.locator('[data-visibility] [data-field="device"]').innerText()).toBe('Desktop');
      });

      it('landscape: the keyword table has the seeded keywords, ideas apart, and sorts from its header buttons', async () => {
        const keywords = await texts('[data-table="keywords"] tbody tr td:first-child');
        expect([...keywords].sort()).toEqual([...SEEDS].sort());
        expect([...(await texts('[data-table="ideas"] tbody tr td:first-child'))].sort()).toEqual([...IDEAS].sort());

        const volume = page.locator('[data-table="keywords"] th:has(button:text("Volume"))');
        expect(await volume.getAttribute('aria-sort')).toBe('none');
        await volume.locator('button').click();
        expect(await volume.getAttribute('aria-sort')).toBe('descending');
        const volumes = (await texts('[data-table="keywords"] tbody tr td:nth-child(2)')).map((v) =>
          Number(v.replace(/,/g, '')),
        );
        expect(volumes).toEqual([...volumes].sort((a, b) => b - a));
        await volume.locator('button').press('Enter');
        expect(await volume.getAttribute('aria-sort')).toBe('ascending');
      });

      it('backlinks: one trend line per domain in its colour, the profiles, health flags explained, and the link gap ranked', async () => {
        await open('backlinks');
        // The trend's default length is the API's own (serp_backlinks' trend_months default), asked for by name.
        expect(await page.inputValue('#months')).toBe(String(LIMITS.trendMonthsDefault));
        expect(sent('serp_backlinks').at(-1)).toMatchObject({
          depth: 'overview',
          trend_months: LIMITS.trendMonthsDefault,
        });
        // At 1280 px the profiles table fits its card: nothing of it is hidden past the right edge.
        const fit = await page.locator('[data-table="profiles"]').evaluate((wrap) => ({
          scroll: wrap.scrollWidth,
          client: wrap.clientWidth,
        }));
        expect(fit.scroll).toBeLessThanOrEqual(fit.client);
        const series = (await texts('[data-table="trend"] thead th')).slice(1);
        expect(series.sort()).toEqual([SITE, ...COMPETITORS.map((c) => c.display_name)].sort());
        const pixels = await canvasPixels(page, 'canvas[data-chart="trend"]', [
          ...COMPETITORS.map((c) => c.color),
          SITE_COLOR,
        ]);
        for (const [color, count] of Object.entries(pixels)) expect([color, count > 20]).toEqual([color, true]);

        expect(await page.locator('[data-table="profiles"] tbody tr').count()).toBe(4);
        const flags = page.locator('.health [data-flag]');
        expect(await flags.count()).toBeGreaterThan(0);
        for (const text of await flags.allInnerTexts()) expect(text.split(/\s+/).length).toBeGreaterThan(5);

        expect(gap.length).toBeGreaterThan(0);
        const shown = await texts('[data-table="gap"] tbody tr td:nth-child(2)');
        expect(shown).toEqual(gap.slice(0, shown.length).map((g) => g.domain));
        expect(shown.length).toBe(Math.min(gap.length, 25));
      });

      it('competitors: the tracked ones with swatch, display name, domain, since when and the last monitoring run', async () => {
        await open('competitors');
        const rows = page.locator('[data-table="competitors"] tbody tr');
        expect(await rows.count()).toBe(3);
        for (const c of COMPETITORS) {
          const text = await page
            .locator(`[data-table="competitors"] tbody tr:has(td:text-is("${c.domain}"))`)
            .innerText();
          expect(text).toContain(c.display_name);
          expect(text).toContain(c.color);
          expect(text).not.toContain('not yet');
        }
        expect(await page.locator('.add-competitor').innerText()).toContain('3 of 10 tracked');
      });

      it('pages: lists articles and questions with their state, and the link relink suppressed after the notify', async () => {
        await open('pages');
        const guide = page.locator('[data-table="articles"] tr:has(td:text-is("Running shoe guide"))');
        expect(await guide.locator(`[data-suppressed="${linkTarget.id}"]`).innerText()).toContain(linkTarget.title);
        expect(await guide.locator('a').getAttribute('href')).toBe(`${t.url}/sites/${t.siteId}/articles/shoe-guide`);
        expect(
          await page.locator(`[data-table="articles"] tr:has(td:text-is("${linkTarget.title}"))`).innerText(),
        ).toContain('deleted');
        expect(await page.locator('[data-table="questions"] tbody tr').count()).toBe(1);
      });

      it('spend: the month’s total and calls per tool and day, the sandbox said to be free', async () => {
        // The per-day chart when the view stops being busy (what tests and screenshots wait for): drawn at its
        // settled size, and shown, i.e. the browser has rendered a frame since the canvas came into the page.
        await page.evaluate(() => {
          const g = globalThis as any;
          const doc = g.document;
          g.frames = 0;
          const tick = () => {
            g.frames++;
            g.requestAnimationFrame(tick);
          };
          g.requestAnimationFrame(tick);
          const observer = new g.MutationObserver(() => {
            const view = doc.querySelector('.view[data-view="spend"]');
            const canvas = view?.querySelector('canvas[data-chart="spend"]');
            if (canvas && g.madeAt === undefined) g.madeAt = g.frames;
            if (!view || view.hasAttribute('aria-busy') || !canvas || g.busyCleared) return;
            const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
            let painted = 0;
            for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
            const box = canvas.parentElement.getBoundingClientRect();
            g.busyCleared = {
              painted,
              sized: canvas.width === Math.floor(box.width * g.devicePixelRatio),
              framesSinceMade: g.frames - g.madeAt,
            };
            observer.disconnect();
          });
          observer.observe(doc.body, {
            subtree: true,
            childList: true,
            attributes: true,
            attributeFilter: ['aria-busy'],
          });
        });
        await open('spend');
        const atReady = await page.evaluate<{ painted: number; sized: boolean; framesSinceMade: number }>(
          'globalThis.busyCleared',
        );
        expect(atReady.painted).toBeGreaterThan(1000);
        expect(atReady.sized).toBe(true);
        expect(atReady.framesSinceMade).toBeGreaterThanOrEqual(1);
        expect(await page.locator('[data-total="calls"]').innerText()).toBe(String(usageBefore.calls));
        expect(await page.locator('[data-total="cost"]').innerText()).toBe('$0.00');
        expect(await page.locator('.view').innerText()).toContain('sandbox: simulated, free');
        // Nothing simulated: no simulated sum, and a budget with no limits says so.
        expect(await page.locator('[data-total="simulated"]').count()).toBe(0);
        expect(await page.locator('.view').innerText()).not.toContain(SIMULATED);
        expect(await texts('[data-budget] [data-field="limit"]')).toEqual(['no limit', 'no limit']);
        expect(await texts('[data-budget] [data-field="used"]')).toEqual(['No daily limit.', 'No monthly limit.']);
        const tools = await texts('[data-table="by-tool"] tbody tr td:first-child');
        expect(tools.sort()).toEqual(usageBefore.by_tool.map((line) => line.tool).sort());
        const dayCalls = (await texts('[data-table="by-day"] tbody tr td:nth-child(4)')).reduce(
          (sum, n) => sum + Number(n),
          0,
        );
        expect(dayCalls).toBe(usageBefore.calls);
        expect(await page.locator('canvas[data-chart="spend"]').count()).toBe(1);
      });

      it('search traffic: with no connection and no days, says Search Console is not connected and how to connect it', async () => {
        await open('traffic', 'traffic-not-connected');
        const note = await page.locator('[data-search-console="not-connected"]').innerText();
        for (const said of [
          'Search Console is not connected.',
          'PUT /v1/search-console',
          'verification_token',
          'service account e-mail',
          'Users and permissions',
        ])
          expect(note).toContain(said);
        expect(await texts('.view .empty-title')).toContain('No Search Console figures yet.');
        expect(await page.locator('[data-traffic-totals], [data-table^="traffic"]').count()).toBe(0);
      });

      it('search traffic: draws search_traffic’s figures against the window before, its lists and the refresh queue most at risk first, for each window', async () => {
        await seedSearchTraffic(t.store, t.siteId);
        for (const days of [7, 90, 28]) {
          const reply = (await tool('search_traffic', { window_days: days })) as SearchTraffic;
          await page.selectOption('#window-days', String(days));
          await page.waitForSelector(
            `.view[data-view="traffic"]:not([aria-busy]) h2:has-text("${reply.window?.from ?? 'none'} to ${reply.window?.to ?? 'none'}")`,
          );
          expect(sent('search_traffic').at(-1)).toEqual({ window_days: days });
          expect([days, await drawnTotals(page)]).toEqual([days, expectedTotals(reply)]);
          expect([days, await drawnLists(page)]).toEqual([days, expectedLists(reply)]);
        }
        const reply = (await tool('search_traffic', {})) as SearchTraffic;
        // The seeded days: three pages decayed, 140, 84 and 56 clicks at risk, listed in that order.
        expect(reply.refresh_queue?.entries.map((e) => e.clicks_at_risk)).toEqual([140, 84, 56]);
        expect(reply.keyword_candidates.length).toBeGreaterThan(0);
        expect(reply.queries.some((q) => q.pages.length > 1)).toBe(true);
        // "trail running shoes": the trail guide's 100 impressions a day and the buying guide's 60.
        expect(reply.cannibalisation.map((q) => [q.query, q.pages.map((p) => p.share)])).toEqual([
          ['trail running shoes', [0.625, 0.375]],
        ]);
        const pixels = await canvasPixels(page, 'canvas[data-chart="traffic-pages"]', [SITE_COLOR]);
        expect(pixels[SITE_COLOR]).toBeGreaterThan(50);
        expect(await page.locator('canvas[data-chart="traffic-pages"]').getAttribute('aria-label')).toContain(
          `${reply.pages.length} pages`,
        );
        await page.screenshot({ path: join(SHOTS, 'traffic.png'), fullPage: true });
        await page.locator('.view-body').screenshot({ path: TRAFFIC_SHOT });
      });

      it('search traffic: a connected property shows its state, the last day imported and what the domain serves to verify it', async () => {
        // A site of its own: connecting imports (at $0, on its own ledger), and the demo site's tour stays as it was.
        const domain = 'connected.example.com';
        const token = 'abc-123_XYZ';
        const other = await t.newSite('connected', { domain });
        expect(await t.store.sites.serveDomain(other.siteId, domain)).toBe('served');
        const put = await t.call(
          'PUT',
          '/v1/search-console',
          { property: `sc-domain:${domain}`, verification_token: token },
          { key: other.key },
        );
        expect(put.status).toBe(200);
        await t.stack.drain();
        const connection = (await t.call('GET', '/v1/search-console', undefined, { key: other.key })).body;
        expect(connection.status).toBe('connected');
        const visit = await watchedPage(browser);
        try {
          await visit.page.goto(`${t.url}/dashboard#key=${encodeURIComponent(other.key)}`);
          await visit.page.waitForSelector('.view[data-view="landscape"]:not([aria-busy])');
          await visit.page.click('nav a[data-view="traffic"]');
          await visit.page.waitForSelector(
            '.view[data-view="traffic"]:not([aria-busy]) [data-search-console="connected"]',
          );
          const field = (name: string) =>
            visit.page.locator(`[data-search-console] [data-field="${name}"]`).innerText();
          expect(await field('property')).toBe(`sc-domain:${domain}`);
          expect(await field('status')).toMatch(/^connected: /);
          expect(await field('imported')).toBe(connection.imported_through);
          const panel = await visit.page.locator('.panel:has([data-search-console])').innerText();
          expect(panel).toContain(connection.verification.file_url);
          expect(panel).toContain(`content="${token}"`);
          expect(await visit.page.locator('[data-search-console="not-connected"]').count()).toBe(0);
          // The sandbox's days, drawn as the tool answers them.
          const reply = (await t.call('POST', '/v1/tools/search_traffic', {}, { key: other.key }))
            .body as SearchTraffic;
          expect(reply.connected).toBe(true);
          expect(await drawnTotals(visit.page)).toEqual(expectedTotals(reply));
          expect(visit.errors).toEqual([]);
        } finally {
          await visit.context.close();
        }
      });

      it.each(PHONE_WIDTHS)('fits a %i px wide screen on every view, with Forget key in sight', async (width) => {
        await expectViewsFit(width, ['landscape', 'traffic', 'backlinks', 'competitors', 'pages', 'spend']);
      });

      it('cost nothing to tour, asked only its own origin, and logged no error or CSP violation', async () => {
        expect(await ledger()).toEqual(usageBefore);
        expect(tour.requests.length).toBeGreaterThan(10);
        expect(tour.requests.filter((url) => !url.startsWith(`${t.url}/`))).toEqual([]);
        expect(tour.errors).toEqual([]);
      });
    });

    describe('the dashboard, acting', () => {
      it('asks before a paid refresh: cancelling costs nothing, confirming makes exactly one call', async () => {
        await open('landscape');
        const refreshes = () => tour.requests.filter((url) => url.endsWith('/v1/tools/serp_keyword_refresh')).length;
        const button = page.locator('[data-table="keywords"] button[data-refresh="running shoes"]');

        await button.click();
        const dialog = page.locator('dialog.confirm');
        expect(await dialog.innerText()).toContain('1 paid SERP pull');
        expect(await dialog.locator('[data-quota-note]').innerText()).toBe(
          `It uses 1 of the site’s SERP refreshes: ${LIMITS.refreshesPerDay} of ${LIMITS.refreshesPerDay} left today (the quota resets at midnight UTC).`,
        );
        expect(await dialog.locator('[data-budget-note]').innerText()).toContain('The site has no budget limit');
        expect(await page.evaluate('document.activeElement.textContent')).toBe('Cancel');
        await page.keyboard.press('Enter');
        expect(await dialog.count()).toBe(0);
        expect(refreshes()).toBe(0);
        expect(await ledger()).toEqual(usageBefore);

        await button.click();
        await page.locator('dialog.confirm button.primary').click();
        await page.waitForSelector('.status p.done');
        expect(await page.locator('.status').innerText()).toMatch(
          /^Refreshed “running shoes”: .*Cost \$0\.00 \(sandbox: simulated, free\)\. 19 of 20 refreshes left today\.$/,
        );
        expect(refreshes()).toBe(1);
        const after = await ledger();
        expect(after.calls).toBe(usageBefore.calls + 1);
        expect(after.by_tool.find((line) => line.tool === 'serp_keyword_refresh')?.calls).toBe(1);
        expect(tour.errors).toEqual([]);
      });

      it('says what is left of the day’s refresh quota: none once it is spent', async () => {
        for (let used = 1; used < LIMITS.refreshesPerDay; used++)
          await tool('serp_keyword_refresh', { keyword: 'marathon shoes' });
        await page.locator('[data-table="keywords"] button[data-refresh="running shoes"]').click();
        const dialog = page.locator('dialog.confirm');
        expect(await dialog.locator('[data-quota-note]').innerText()).toBe(
          `0 of ${LIMITS.refreshesPerDay} SERP refreshes left today: the site’s quota is spent, so the refresh would be refused (it resets at midnight UTC).`,
        );
        await page.screenshot({ path: join(SHOTS, 'refresh-quota-spent.png') });
        await dialog.locator('button:text-is("Cancel")').click();
        expect(await dialog.count()).toBe(0);
      });

      it('adds a competitor after confirming, as one add_competitor call, and shows it in its colour; cancelling makes no call', async () => {
        await open('competitors');
        const form = page.locator('form.add-competitor');
        expect(await form.innerText()).toContain('3 of 10 tracked');
        await page.fill('#c-domain', ADDED.domain);
        await page.fill('#c-name', ADDED.display_name);
        await page.fill('#c-color', ADDED.color);

        await form.locator('button[type="submit"]').click();
        const dialog = page.locator('dialog.confirm');
        expect(await dialog.innerText()).toContain(`Track ${ADDED.domain}?`);
        expect(await dialog.innerText()).toContain('It takes 4 of 10 places');
        await dialog.locator('button:text-is("Cancel")').click();
        expect(await dialog.count()).toBe(0);
        expect(sent('add_competitor')).toEqual([]);

        await form.locator('button[type="submit"]').click();
        await page.locator('dialog.confirm button.primary').click();
        await page.waitForSelector('.status p.done');
        expect(await page.locator('.status').innerText()).toContain(
          `Now tracking ${ADDED.display_name} (${ADDED.domain})`,
        );
        expect(sent('add_competitor')).toEqual([ADDED]);
        await page.waitForSelector('.view[data-view="competitors"]:not([aria-busy])');
        const row = page.locator(`[data-table="competitors"] tbody tr:has(td:text-is("${ADDED.domain}"))`);
        expect(await row.innerText()).toContain(ADDED.display_name);
        expect(await computedStyle(row.locator('.swatch'), 'backgroundColor')).toBe(hexToRgb(ADDED.color));
        expect(await page.locator('form.add-competitor').innerText()).toContain('4 of 10 tracked');
      });

      it('stops monitoring a competitor after confirming (free), and not when cancelled', async () => {
        const stop = page.locator(`button[data-stop="${ADDED.domain}"]`);
        await stop.click();
        const dialog = page.locator('dialog.confirm');
        expect(await dialog.innerText()).toContain('Free: no provider call');
        await dialog.locator('button:text-is("Cancel")').click();
        expect(sent('db_delete')).toEqual([]);

        await stop.click();
        await page.locator('dialog.confirm button.primary').click();
        await page.waitForSelector('.status p.done');
        expect(sent('db_delete')).toHaveLength(1);
        await page.waitForSelector('.view[data-view="competitors"]:not([aria-busy])');
        expect(await page.locator(`[data-table="competitors"] td:text-is("${ADDED.domain}")`).count()).toBe(0);
        expect(await page.locator('form.add-competitor').innerText()).toContain('3 of 10 tracked');
        const active = (await tool('db_select', { table: 'cm_competitors', where: { active: true } })).rows as {
          domain: string;
        }[];
        expect(active.map((c) => c.domain).sort()).toEqual(COMPETITORS.map((c) => c.domain).sort());
        expect(tour.errors).toEqual([]);
      });

      it('shows a wrong key’s refusal in the API’s words, and asks for a key again', async () => {
        const wrong = await watchedPage(browser);
        try {
          const refusal = (await t.call('GET', '/v1/usage', undefined, { key: 'cmk_wrong' })).body as {
            message: string;
          };
          await wrong.page.goto(`${t.url}/dashboard#key=cmk_wrong`);
          const alert = wrong.page.locator('.key-form [role="alert"]');
          await alert.waitFor();
          expect(await alert.innerText()).toContain(refusal.message);
          expect(await wrong.page.locator('input#api-key').count()).toBe(1);
          await wrong.page.screenshot({ path: join(SHOTS, 'wrong-key.png') });
        } finally {
          await wrong.context.close();
        }
      });

      it('forgets the key on request', async () => {
        await page.click('button:text("Forget key")');
        await page.locator('input#api-key').waitFor();
        expect(await page.evaluate('sessionStorage.length')).toBe(0);
      });

      it('runs in a browser that enforces the CSP, so the tour’s clean console means no violation', async () => {
        const probe = await watchedPage(browser);
        try {
          await probe.page.goto(`${t.url}/dashboard`);
          await probe.page.evaluate(
            "document.head.append(Object.assign(document.createElement('script'), { textContent: 'window.inlineRan = true' }))",
          );
          expect(await probe.page.evaluate('window.inlineRan === true')).toBe(false);
          expect(probe.errors.join('\n')).toContain('Content Security Policy');
        } finally {
          await probe.context.close();
        }
      });
    });
  });

  describe('with the sandbox charging list prices (SANDBOX_LIST_PRICES=1)', () => {
    const KEYWORDS = ['trail shoes', 'hiking boots', 'rain jackets', 'camping stoves', 'tent pegs'];

    beforeAll(async () => {
      t = await startTestStack({ env: { SANDBOX_LIST_PRICES: '1' } });
      const topic = (await tool('db_insert', { table: 'cm_topics', row: { name: 'Outdoor gear' } })).row;
      await tool('get_keywords', { topic_id: topic.id, seeds: KEYWORDS });
      await t.call('PUT', '/v1/budget', { daily_usd: 5, monthly_usd: 50 });
      await openDashboard();
    }, 60_000);

    afterAll(async () => {
      await tour?.context.close();
      await t?.stop();
    });

    it('spend: the budget panel shows the limits set through the API, the spend and when each window resets; simulated money apart from billed', async () => {
      await open('spend', 'spend-list-prices');
      const now = await budget();
      expect(now.daily.simulated_usd).toBeGreaterThan(0);
      for (const [key, adjective] of [
        ['daily', 'daily'],
        ['monthly', 'monthly'],
      ] as const) {
        const w = now[key];
        const panel = page.locator(`[data-budget] [data-window="${key}"]`);
        expect(await panel.locator('[data-field="limit"]').innerText()).toBe(fmtUsd(w.limit_usd));
        expect(await panel.locator('[data-field="billed"]').innerText()).toBe('$0.00');
        expect(await panel.locator('[data-field="simulated"]').innerText()).toBe(fmtUsd(w.simulated_usd));
        expect(await panel.locator('[data-field="reserved"]').innerText()).toBe(fmtUsd(w.reserved_usd));
        expect(await panel.locator('[data-field="resets"]').innerText()).toBe(fmtTime(w.resets_at));
        expect(await panel.locator('[data-field="used"]').innerText()).toMatch(
          new RegExp(
            `^[\\d.]+% of the ${adjective} limit used, \\${fmtUsd(w.limit_usd! - w.spent_usd - w.reserved_usd)} left$`,
          ),
        );
        expect(Number(await panel.locator('meter').getAttribute('value'))).toBeCloseTo(
          (w.spent_usd + w.reserved_usd) / w.limit_usd!,
          6,
        );
      }
      const usage = (await t.call('GET', '/v1/usage')).body as { cost_usd: number; simulated_cost_usd: number };
      expect(await page.locator('[data-total="cost"]').innerText()).toBe('$0.00');
      expect(await page.locator('[data-total="simulated"]').innerText()).toBe(fmtUsd(usage.simulated_cost_usd));
      const view = await page.locator('.view').innerText();
      expect(view).toContain(SIMULATED);
      expect(view).not.toContain('sandbox: simulated, free');
      // Each line's cost sits under Simulated, none under Billed.
      expect(new Set(await texts('[data-table="by-tool"] tbody td:nth-child(4)'))).toEqual(new Set(['—']));
      expect(await texts('[data-table="by-tool"] tbody td:nth-child(5)')).not.toContain('—');
    });

    it.each(PHONE_WIDTHS)('fits the budget panel and its form on a %i px wide screen', async (width) => {
      await expectViewsFit(width, ['spend']);
    });

    it('sets the budget from its form after confirming (read back with GET /v1/budget); cancelling changes nothing', async () => {
      const before = await budget();
      await page.fill('#budget-daily', '2.5');
      await page.fill('#budget-monthly', '');
      await page.click('form.budget-form button[type="submit"]');
      const dialog = page.locator('dialog.confirm');
      expect(await dialog.innerText()).toContain('Daily: $2.50 (now $5.00)');
      expect(await dialog.innerText()).toContain('Monthly: no limit (now $50.00)');
      expect(await dialog.innerText()).toContain('Free: no provider call');
      await dialog.locator('button:text-is("Cancel")').click();
      expect(await budget()).toEqual(before);
      expect(tour.sent.filter((s) => s.method === 'PUT')).toEqual([]);

      await page.click('form.budget-form button[type="submit"]');
      await page.locator('dialog.confirm button.primary').click();
      await page.waitForSelector('.status p.done');
      expect(await page.locator('.status').innerText()).toBe('Budget set: daily $2.50, monthly no limit. No cost.');
      expect(tour.sent.filter((s) => s.method === 'PUT').map((s) => s.body)).toEqual([
        { daily_usd: 2.5, monthly_usd: null },
      ]);
      const after = await budget();
      expect([after.daily.limit_usd, after.monthly.limit_usd]).toEqual([2.5, null]);
      await page.waitForSelector('.view[data-view="spend"]:not([aria-busy])');
      expect(await texts('[data-budget] [data-field="limit"]')).toEqual(['$2.50', 'no limit']);
      expect(await page.inputValue('#budget-daily')).toBe('2.5');
    });

    it('pulls the missing SERPs after a dialog that names how many and the budget left: one serp_landscape list call, and the coverage goes up', async () => {
      await open('landscape', 'landscape-list-prices');
      const serps = () => page.locator('.coverage dd').nth(2).innerText();
      expect(await serps()).toBe('0 (0%)');
      const pull = page.locator('.coverage button');
      expect(await pull.innerText()).toBe(`Pull ${KEYWORDS.length} missing SERPs…`);
      await pull.click();
      const dialog = page.locator('dialog.confirm');
      expect(await dialog.innerText()).toContain(`Up to ${KEYWORDS.length} paid SERP pulls`);
      const left = (await budget()).daily;
      expect(await dialog.locator('[data-budget-note]').innerText()).toContain(
        `Budget left: ${fmtUsd(left.limit_usd! - left.spent_usd - left.reserved_usd)} of today’s $2.50 limit.`,
      );
      await page.locator('dialog.confirm button.primary').click();
      await page.waitForSelector('.status p.done');
      const said = await page.locator('.status').innerText();
      expect(said).toMatch(new RegExp(`^Pulled ${KEYWORDS.length} SERPs\\. Cost \\$0\\.\\d+ `));
      expect(said).toContain(`(${SIMULATED}).`);
      expect(sent('serp_landscape').filter((body) => body.depth === 'list')).toHaveLength(1);
      await page.waitForSelector('.view[data-view="landscape"]:not([aria-busy])');
      expect(await serps()).toBe(`${KEYWORDS.length} (100%)`);
    });

    it('shows a paid refresh’s simulated cost and the budget it left, and the spend view then sums simulated money apart from billed', async () => {
      const before = (await t.call('GET', '/v1/usage')).body as { simulated_cost_usd: number };
      await page.locator(`[data-table="keywords"] button[data-refresh="${KEYWORDS[0]}"]`).click();
      await page.locator('dialog.confirm button.primary').click();
      await page.waitForSelector('.status p.done');
      const usage = (await t.call('GET', '/v1/usage')).body as {
        cost_usd: number;
        simulated_cost_usd: number;
        by_tool: { tool: string; cost_usd: number }[];
      };
      const refresh = usage.by_tool.find((line) => line.tool === 'serp_keyword_refresh')!;
      expect(refresh.cost_usd).toBeGreaterThan(0);
      expect(usage.simulated_cost_usd).toBeCloseTo(before.simulated_cost_usd + refresh.cost_usd, 6);
      const left = (await budget()).daily;
      expect(await page.locator('.status').innerText()).toContain(
        `Cost ${fmtUsd(refresh.cost_usd)} (${SIMULATED}). Budget left today: ${fmtUsd(left.limit_usd! - left.spent_usd - left.reserved_usd)}.`,
      );

      await open('spend', 'spend-list-prices');
      expect(await page.locator('[data-total="cost"]').innerText()).toBe(fmtUsd(usage.cost_usd));
      expect(await page.locator('[data-total="simulated"]').innerText()).toBe(fmtUsd(usage.simulated_cost_usd));
      const row = page.locator('[data-table="by-tool"] tbody tr:has(td:text-is("serp_keyword_refresh"))');
      expect(await row.locator('td').allInnerTexts()).toEqual([
        'serp_keyword_refresh',
        'sandbox (list prices, not billed)',
        '1',
        '—',
        fmtUsd(refresh.cost_usd),
      ]);
      expect(tour.errors).toEqual([]);
    });

    it('shows a refresh past a tiny daily limit refused in words (window, limit, spent, resets at), with no ledger entry', async () => {
      const spent = (await budget()).daily.spent_usd;
      const set = (await t.call('PUT', '/v1/budget', { daily_usd: spent })).body as Budget;
      const calls = (await ledger()).calls;
      await open('landscape', 'landscape-list-prices');
      await page.locator(`[data-table="keywords"] button[data-refresh="${KEYWORDS[1]}"]`).click();
      expect(await page.locator('dialog.confirm [data-budget-note]').innerText()).toContain(
        `Budget left: $0.00 of today’s ${fmtUsd(spent)} limit.`,
      );
      await page.locator('dialog.confirm button.primary').click();
      await page.waitForSelector('.status p.error');
      await page.screenshot({ path: join(SHOTS, 'budget-refused.png') });
      expect(await page.locator('.status').innerText()).toBe(
        `Refused by the budget: the next provider call would pass the site's daily limit of ${fmtUsd(spent)} (${fmtUsd(spent)} spent), so it was not made. It resets ${fmtTime(set.daily.resets_at)}. “Set budget” under Spend changes the limit.`,
      );
      expect((await ledger()).calls).toBe(calls);
      expect(sent('serp_keyword_refresh')).toHaveLength(2);
    });

    it('asked only its own origin', () => {
      expect(tour.requests.filter((url) => !url.startsWith(`${t.url}/`))).toEqual([]);
    });
  });
});
