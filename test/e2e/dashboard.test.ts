import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { outlineColor, SITE_COLOR } from '../../packages/dashboard/app/colors';
import { canvasPixels, computedStyle, launchBrowser, watchedPage, type WatchedPage } from '../helpers/browser';
import { article, question, startTestStack, type TestStack } from '../helpers/local';

/*
 * The dashboard in a real headless Chromium, against a local stack seeded through the public API: every
 * view shows the seeded data in the competitors' colours and names, viewing costs nothing, paid actions
 * ask first, and the page talks to nothing but its own origin under its CSP.
 */

const SHOTS = join(__dirname, '..', '..', 'test-output', 'dashboard');
const README_SHOT = join(__dirname, '..', '..', 'docs', 'screenshots', 'dashboard-landscape.png');

const COMPETITORS = [
  { domain: 'runfast.com', display_name: 'RunFast', color: '#dc2626' },
  { domain: 'shoe-hub.com', display_name: 'Shoe Hub', color: '#16a34a' },
  // Light: under 3:1 against white, so it must be drawn with an outline.
  { domain: 'sunny-soles.com', display_name: 'Sunny Soles', color: '#fde047' },
];
const SEEDS = ['running shoes', 'trail running shoes', 'best running shoes', 'running shoes for flat feet', 'marathon shoes', 'cushioned running shoes'];
const IDEAS = ['road shoes', 'racing flats'];
const SITE = 'demo.example.com';

let t: TestStack;
let browser: Browser;
let tour: WatchedPage;
let page: Page;
let gap: { domain: string }[];
let linkTarget: { id: string; title: string };
const ledger = async () => {
  const { calls, by_tool } = (await t.call('GET', '/v1/usage')).body as { calls: number; by_tool: { tool: string; calls: number }[] };
  return { calls, by_tool };
};
let usageBefore: Awaited<ReturnType<typeof ledger>>;

async function tool(name: string, body: unknown) {
  const reply = await t.call('POST', `/v1/tools/${name}`, body);
  if (reply.status !== 200) throw new Error(`${name} answered ${reply.status}: ${reply.text}`);
  return reply.body;
}

/** A topic with committed keywords and their SERPs, ideas through a page, three tracked competitors with snapshots, and pages one of which relink hides a link of. */
async function seed() {
  for (const competitor of COMPETITORS) await tool('add_competitor', competitor);
  const topic = (await tool('db_insert', { table: 'cm_topics', row: { name: 'Running shoes' } })).row;
  await tool('get_keywords', { topic_id: topic.id, seeds: SEEDS });
  await tool('research', { mode: 'keywords', seed: `${IDEAS.join(', ')}, carbon plate shoes` });
  await tool('db_insert', { table: 'cm_pages', row: { title: 'Road shoes', topic_id: topic.id, primary_keyword: IDEAS[0], secondary_keywords: [IDEAS[1]] } });
  // Competitors first: the sandbox places tracked domains in the SERPs it pulls.
  await tool('serp_landscape', { topic_id: topic.id, depth: 'list' });
  const target = (await t.call('POST', '/articles', article('retired-model', { title: 'The retired model' }))).body.id as string;
  await t.call('POST', '/articles', article('shoe-guide', { title: 'Running shoe guide', related_article_ids: [target] }));
  await t.call('POST', '/questions', question('which-shoe'));
  await t.stack.drain();
  expect((await t.call('POST', '/api/content/notify', { id: target, type: 'article', action: 'deleted' })).body.relink).toBe('queued');
  await t.stack.drain();
  linkTarget = { id: target, title: 'The retired model' };
  gap = (await tool('serp_backlinks', { scope: 'all', depth: 'overview', trend_months: 12 })).gap;
}

/** Goes to a view by its nav link (as a user would) and waits until it has rendered. */
async function open(view: string) {
  await page.click(`nav a[data-view="${view}"]`);
  await page.waitForSelector(`.view[data-view="${view}"]:not([aria-busy])`);
  await page.screenshot({ path: join(SHOTS, `${view}.png`), fullPage: true });
}

/** The text of each match, shown or not (a table alternative may sit in a closed <details>). */
const texts = async (selector: string) => (await page.locator(selector).allTextContents()).map((text) => text.trim());
const hexToRgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [t, browser] = await Promise.all([startTestStack(), launchBrowser()]);
  await seed();
  usageBefore = await ledger();
  tour = await watchedPage(browser);
  page = tour.page;
  await page.goto(`${t.url}/dashboard#key=${encodeURIComponent(t.key)}`);
  await page.waitForSelector('.view[data-view="landscape"]:not([aria-busy])');
}, 60_000);

afterAll(async () => {
  await browser?.close();
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
    await page.screenshot({ path: join(SHOTS, 'landscape.png'), fullPage: true });
    const sov = page.locator('.panel:has(h2:text-is("Share of voice"))');
    const box = (await sov.boundingBox())!;
    await page.screenshot({ path: README_SHOT, fullPage: true, clip: { x: 0, y: 0, width: 1280, height: Math.ceil(box.y + box.height + 24) } });

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

    const pixels = await canvasPixels(page, 'canvas[data-chart="sov"]', [...COMPETITORS.map((c) => c.color), SITE_COLOR]);
    for (const [color, count] of Object.entries(pixels)) expect([color, count > 50]).toEqual([color, true]);
    expect(await page.locator('canvas[data-chart="sov"]').getAttribute('aria-label')).toContain('RunFast');
  });

  it('landscape: the keyword table has the seeded keywords, ideas apart, and sorts from its header buttons', async () => {
    const keywords = await texts('[data-table="keywords"] tbody tr td:first-child');
    expect([...keywords].sort()).toEqual([...SEEDS].sort());
    expect([...(await texts('[data-table="ideas"] tbody tr td:first-child'))].sort()).toEqual([...IDEAS].sort());

    const volume = page.locator('[data-table="keywords"] th:has(button:text("Volume"))');
    expect(await volume.getAttribute('aria-sort')).toBe('none');
    await volume.locator('button').click();
    expect(await volume.getAttribute('aria-sort')).toBe('descending');
    const volumes = (await texts('[data-table="keywords"] tbody tr td:nth-child(2)')).map((v) => Number(v.replace(/,/g, '')));
    expect(volumes).toEqual([...volumes].sort((a, b) => b - a));
    await volume.locator('button').press('Enter');
    expect(await volume.getAttribute('aria-sort')).toBe('ascending');
  });

  it('backlinks: one trend line per domain in its colour, the profiles, health flags explained, and the link gap ranked', async () => {
    await open('backlinks');
    const series = (await texts('[data-table="trend"] thead th')).slice(1);
    expect(series.sort()).toEqual([SITE, ...COMPETITORS.map((c) => c.display_name)].sort());
    const pixels = await canvasPixels(page, 'canvas[data-chart="trend"]', [...COMPETITORS.map((c) => c.color), SITE_COLOR]);
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
      const text = await page.locator(`[data-table="competitors"] tbody tr:has(td:text-is("${c.domain}"))`).innerText();
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
    expect(await page.locator(`[data-table="articles"] tr:has(td:text-is("${linkTarget.title}"))`).innerText()).toContain('deleted');
    expect(await page.locator('[data-table="questions"] tbody tr').count()).toBe(1);
  });

  it('spend: the month’s total and calls per tool and day, the sandbox said to be free', async () => {
    await open('spend');
    expect(await page.locator('[data-total="calls"]').innerText()).toBe(String(usageBefore.calls));
    expect(await page.locator('[data-total="cost"]').innerText()).toBe('$0.00');
    expect(await page.locator('.view').innerText()).toContain('sandbox: simulated, free');
    const tools = await texts('[data-table="by-tool"] tbody tr td:first-child');
    expect(tools.sort()).toEqual(usageBefore.by_tool.map((line) => line.tool).sort());
    const dayCalls = (await texts('[data-table="by-day"] tbody tr td:nth-child(4)')).reduce((sum, n) => sum + Number(n), 0);
    expect(dayCalls).toBe(usageBefore.calls);
    expect(await page.locator('canvas[data-chart="spend"]').count()).toBe(1);
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
    expect(await dialog.innerText()).toContain('1 of the site’s 20 SERP refreshes');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Cancel');
    await page.keyboard.press('Enter');
    expect(await dialog.count()).toBe(0);
    expect(refreshes()).toBe(0);
    expect(await ledger()).toEqual(usageBefore);

    await button.click();
    await page.locator('dialog.confirm button.primary').click();
    await page.waitForSelector('.status p.done');
    expect(await page.locator('.status').innerText()).toMatch(
      /^Refreshed “running shoes”: .*Cost \$0\.00 \(sandbox: simulated, free\)\. 1 of 20 refreshes used today\.$/,
    );
    expect(refreshes()).toBe(1);
    const after = await ledger();
    expect(after.calls).toBe(usageBefore.calls + 1);
    expect(after.by_tool.find((line) => line.tool === 'serp_keyword_refresh')?.calls).toBe(1);
    expect(tour.errors).toEqual([]);
  });

  it('shows a wrong key’s refusal in the API’s words, and asks for a key again', async () => {
    const wrong = await watchedPage(browser);
    try {
      const refusal = (await t.call('GET', '/v1/usage', undefined, { key: 'cmk_wrong' })).body as { message: string };
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
      await probe.page.evaluate("document.head.append(Object.assign(document.createElement('script'), { textContent: 'window.inlineRan = true' }))");
      expect(await probe.page.evaluate('window.inlineRan === true')).toBe(false);
      expect(probe.errors.join('\n')).toContain('Content Security Policy');
    } finally {
      await probe.context.close();
    }
  });
});
