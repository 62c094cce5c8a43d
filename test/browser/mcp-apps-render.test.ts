import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser, Frame, Page } from 'playwright-core';
import { MCP_APPS, type McpAppName } from '@cm/contract';
import { buildMcpApps, type McpAppFile } from '@cm/dashboard/mcp-apps';
import { outlineColor, resultStyles, SITE_COLOR } from '../../packages/dashboard/app/colors';
import { fmtInt, fmtNum, fmtPct, fmtUsd } from '../../packages/dashboard/app/format';
import type { RankHistory, SearchTraffic } from '../../packages/dashboard/app/types';
import {
  canvasPixels,
  chromiumFound,
  computedStyle,
  launchBrowser,
  watchedPage,
  type WatchedPage,
} from '../helpers/browser';
import { describeWith } from '../helpers/platform';
import { startTestStack, type TestStack } from '../helpers/local';
import { drawnOverviewStates, drawnVisibilityDays, overviewStates, siteOf } from '../helpers/history-figures';
import { trackTopicFor } from '../helpers/rank-seed';
import { drawnLists, drawnTotals, expectedLists, expectedTotals, seedSearchTraffic } from '../helpers/traffic-figures';

/*
 * The MCP Apps as a host shows them: each built App's one HTML file in a sandboxed iframe of a host
 * page, which talks to it with ext-apps' own AppBridge over postMessage (the ui/initialize handshake,
 * then ui/notifications/tool-input and tool-result), handed real results a local stack answered over
 * REST. Each draws what it is handed (the landscape in the competitors' stored colours), says in words
 * what it cannot draw, and reaches nothing outside its resource: its CSP allows no source, and the page
 * makes no request.
 */

const SHOTS = join(__dirname, '..', '..', 'test-output', 'mcp-apps');
const HOST_URL = 'http://host.test/';

const COMPETITORS = [
  { domain: 'runfast.com', display_name: 'RunFast', color: '#dc2626' },
  { domain: 'shoe-hub.com', color: '#16a34a' },
  // Stored without a colour: drawn in the palette's.
  { domain: 'trail-kings.com' },
];
const COLORED = ['#dc2626', '#16a34a'];
const SEEDS = ['running shoes', 'trail running shoes', 'best running shoes', 'marathon shoes'];

/**
 * The host page's script: ext-apps' AppBridge, bundled for the browser. `showApp` frames an App's HTML
 * as hosts do (srcdoc, scripts allowed, an opaque origin), sizes the frame to what the App reports, and
 * hands it the tool input and then the result once the App has initialized.
 */
const HOST_SCRIPT = `
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
window.showApp = async (html, input, result) => {
  document.body.replaceChildren();
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  // About a chat column's width, where hosts show Apps.
  frame.style.cssText = 'width: 760px; height: 400px; border: 1px solid #94a3b8; display: block';
  document.body.append(frame);
  const bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, {});
  bridge.onsizechange = ({ height }) => { if (height) frame.style.height = Math.ceil(height) + 'px'; };
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: input });
  await bridge.sendToolResult(result);
};
`;

let dir: string;
let apps: Record<McpAppName, string>;
let files: McpAppFile[];
let hostScript: string;
let t: TestStack;
let browser: Browser;
let host: WatchedPage;
let page: Page;
let landscape: {
  sov: { domains: { domain: string; is_site: boolean; is_competitor: boolean; color?: string }[] };
  keywords: { keyword: string; is_idea: boolean }[];
  history: RankHistory;
};
let backlinks: {
  profiles: { domain: string; is_site: boolean; is_competitor: boolean; summary: { referring_domains: number } }[];
  gap: { domain: string }[];
};
let usage: { calls: number; cost_usd: number; by_tool: { tool: string }[]; budget: unknown };
/** search_traffic of the demo site, with Search Console days, and of a site with none. */
let traffic: SearchTraffic;
let noTraffic: SearchTraffic;

async function tool(name: string, body: unknown) {
  const reply = await t.call('POST', `/v1/tools/${name}`, body);
  if (reply.status !== 200) throw new Error(`${name} answered ${reply.status}: ${reply.text}`);
  return reply.body;
}

/** A tool result as an MCP server answers it: the JSON as text, and as structuredContent. */
const toolResult = (result: unknown) => ({
  content: [{ type: 'text', text: JSON.stringify(result) }],
  structuredContent: result,
});

/** The App's frame in the host page (showApp replaces it each time). */
function appFrame(): Frame {
  const frame = page.frames().find((f) => f !== page.mainFrame() && !f.isDetached());
  if (!frame) throw new Error('the host page has no App frame');
  return frame;
}

/** Shows `app` in the host page with `result`, and waits until it has drawn; its screenshot is `shot`.png. */
async function show(app: McpAppName, input: Record<string, unknown>, result: unknown, shot: string): Promise<Frame> {
  await page.evaluate(
    ([html, input, result]) =>
      (globalThis as unknown as { showApp(h: string, i: unknown, r: unknown): Promise<void> }).showApp(
        html,
        input,
        result,
      ),
    [apps[app], input, result] as const,
  );
  const frame = appFrame();
  await frame.waitForSelector(`.view[data-app="${app}"]:not([aria-busy])`);
  // The frame takes the height the App reports (ui/notifications/size-changed) before it is pictured.
  const height = await frame.evaluate('document.documentElement.scrollHeight');
  await page.waitForFunction(
    (height) =>
      (
        globalThis as unknown as { document: { querySelector(s: string): { clientHeight: number } } }
      ).document.querySelector('iframe').clientHeight >=
      Number(height) - 2,
    height,
  );
  await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: true });
  return frame;
}

const texts = async (frame: Frame, selector: string) =>
  (await frame.locator(selector).allTextContents()).map((text) => text.trim());
const hexToRgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
/** canvasPixels reads a frame as it reads a page. */
const pixels = (frame: Frame, selector: string, hexes: string[]) =>
  canvasPixels(frame as unknown as Page, selector, hexes);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cm-mcp-apps-test-'));
  files = await buildMcpApps(dir);
  apps = Object.fromEntries(files.map((f) => [f.app, f.body.toString('utf8')])) as Record<McpAppName, string>;
  const bundled = await build({
    stdin: { contents: HOST_SCRIPT, resolveDir: __dirname, loader: 'js' },
    bundle: true,
    format: 'iife',
    write: false,
    logLevel: 'silent',
  });
  hostScript = bundled.outputFiles[0]!.text;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the MCP Apps build', () => {
  it('writes one HTML file per App, named as MCP_APPS says', () => {
    expect(files.map((f) => f.name).sort()).toEqual(
      Object.values(MCP_APPS)
        .map((a) => a.file)
        .sort(),
    );
  });

  it.each(Object.keys(MCP_APPS))(
    '%s: a CSP that allows nothing but its own inline script and styles, and no external reference',
    (app) => {
      const html = apps[app as McpAppName];
      const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
      expect(csp).toBeDefined();
      const directives = Object.fromEntries(
        csp!.split(';').map((d) => {
          const [name, ...values] = d.trim().split(/\s+/);
          return [name, values];
        }),
      );
      const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
      const script = /<script type="module">([\s\S]*)<\/script>/.exec(html)![1]!;
      const styles = /<style>([\s\S]*)<\/style>/.exec(html)![1]!;
      expect(directives).toEqual({
        'default-src': ["'none'"],
        'script-src': [hash(script)],
        'style-src': [hash(styles)],
        'base-uri': ["'none'"],
        'form-action': ["'none'"],
      });
      // The CSP comes before anything it governs, and the page names no file to load.
      expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<style>'));
      expect(html).not.toMatch(/\s(?:src|href|srcset|action)=/);
      expect(styles).not.toMatch(/url\(|@import/);
      expect(script).not.toMatch(/\bfetch\(|new (?:XMLHttpRequest|WebSocket|EventSource)\b|sendBeacon\(|x-api-key/i);
      // The only URLs are identifiers inside the bundled libraries (JSON Schema dialects, the base the MCP
      // SDK's JSON Schema validator resolves $refs against, a description's example), never loaded.
      const urls = new Set(html.match(/https?:\/\/[^\s"'`)<>\\]+/g) ?? []);
      expect(
        [...urls].filter(
          (url) =>
            !/^https?:\/\/(json-schema\.org\/|github\.com\/cfworker$|\*\.example\.com$|\[\$\{\w+\}\]$)/.test(url),
        ),
      ).toEqual([]);
    },
  );
});

describeWith(chromiumFound, 'the MCP Apps in a host page', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestStack();
    for (const competitor of COMPETITORS) await tool('add_competitor', competitor);
    const topic = (await tool('db_insert', { table: 'cm_topics', row: { name: 'Running shoes' } })).row;
    await tool('get_keywords', { topic_id: topic.id, seeds: SEEDS });
    await tool('serp_landscape', { topic_id: topic.id, depth: 'list' });
    await t.stack.drain();
    await trackTopicFor(t, t.siteId, topic.id, 7);
    landscape = await tool('serp_landscape', { topic_id: topic.id, depth: 'metrics', history_days: 7 });
    backlinks = await tool('serp_backlinks', { scope: 'all', depth: 'overview', trend_months: 12 });
    usage = {
      ...(await t.call('GET', '/v1/usage?by=day')).body,
      budget: (await t.call('GET', '/v1/budget')).body,
    };
    await seedSearchTraffic(t.store, t.siteId);
    traffic = await tool('search_traffic', {});
    const bare = await t.newSite('no-search-console');
    noTraffic = (await t.call('POST', '/v1/tools/search_traffic', {}, { key: bare.key })).body;
    browser = await launchBrowser();
    host = await watchedPage(browser);
    page = host.page;
    await page.route(HOST_URL, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html><head><title>Test host</title></head><body><script>${hostScript}</script></body></html>`,
      }),
    );
    await page.goto(HOST_URL);
  }, 90_000);

  afterAll(async () => {
    await host?.context.close();
    await browser?.close();
    await t?.stop();
  });

  it('serp_landscape carries each competitor’s stored colour in sov.domains, and none for one stored without', () => {
    const competitors = landscape.sov.domains.filter((d) => d.is_competitor);
    expect(Object.fromEntries(competitors.map((d) => [d.domain, d.color]))).toEqual({
      'runfast.com': '#dc2626',
      'shoe-hub.com': '#16a34a',
      'trail-kings.com': undefined,
    });
  });

  it('keyword landscape: draws share of voice with each competitor in its stored colour, the others in the palette, and the keywords', async () => {
    const frame = await show(
      'keyword_landscape',
      { topic_id: 1, depth: 'metrics' },
      toolResult(landscape),
      'keyword-landscape',
    );
    const styles = resultStyles(landscape.sov.domains);
    const colourless = styles.of('trail-kings.com').fill;
    expect(COLORED).not.toContain(colourless);
    const drawn = await pixels(frame, 'canvas[data-chart="sov"]', [...COLORED, colourless, SITE_COLOR]);
    // Each in its colour: the smallest share here (a competitor's 0.3 %, on the page-one CTR curve) is a bar
    // of about 45 pixels; no blend at a neighbour's edge gives that many of one exact colour.
    for (const [color, count] of Object.entries(drawn)) expect([color, count >= 20]).toEqual([color, true]);
    for (const [domain, color] of [
      ['runfast.com', '#dc2626'],
      ['shoe-hub.com', '#16a34a'],
      ['trail-kings.com', colourless],
    ] as const) {
      const swatch = frame.locator(`[data-table="sov"] tr.is-competitor:has([data-domain="${domain}"]) .swatch`);
      expect(await computedStyle(swatch, 'backgroundColor')).toBe(hexToRgb(color));
      expect(await computedStyle(swatch, 'borderTopColor')).toBe(hexToRgb(outlineColor(color)));
    }
    const keywords = await texts(frame, '[data-table="keywords"] tbody tr td:first-child');
    expect([...keywords].sort()).toEqual(
      landscape.keywords
        .filter((k) => !k.is_idea)
        .map((k) => k.keyword)
        .sort(),
    );
    // The rank history it is handed: share of voice over time in the same colours, what moved, each keyword's positions.
    const history = await pixels(frame, 'canvas[data-chart="sov-history"]', [...COLORED, SITE_COLOR]);
    for (const [color, count] of Object.entries(history)) expect([color, count > 20]).toEqual([color, true]);
    expect(await frame.locator('[data-table="visibility"] tbody tr').count()).toBeGreaterThan(3);
    const button = frame.locator('[data-table="keywords"] button[data-open-history]').first();
    const keyword = await button.getAttribute('data-open-history');
    await button.click();
    const opened = frame.locator(`details.position-history[data-history="${keyword}"]`);
    expect(await opened.getAttribute('open')).not.toBeNull();
    expect(await opened.locator('[data-table="positions"] tbody tr').count()).toBe(7);
    // Visibility per day and each keyword's AI Overview markers, as the history it is handed says.
    const lines = landscape.history.visibility.filter((v) => v.is_site || v.is_competitor);
    const site = siteOf(landscape.history);
    expect(await drawnVisibilityDays(frame)).toEqual(
      landscape.history.days
        .map((day, i) => [
          day,
          ...lines.map((l) => fmtPct(l.visibility_pct[i])),
          fmtNum(site.estimated_clicks_per_day[i]),
        ])
        .reverse(),
    );
    expect(await frame.locator('[data-visibility] [data-field="curve"]').innerText()).toBe(landscape.history.ctr_curve);
    expect(await frame.locator('[data-visibility] [data-field="device"]').innerText()).toBe('Desktop');
    expect(Object.keys(overviewStates(landscape.history)).sort()).toEqual([...SEEDS].sort());
    expect(await drawnOverviewStates(frame)).toEqual(overviewStates(landscape.history));
    // It acts on nothing: no paid action's button, as it has no key.
    expect(await frame.locator('button[data-refresh], .coverage button').count()).toBe(0);
  });

  it('backlinks: draws the referring-domain trend per domain and the profiles and link gap it is handed', async () => {
    const frame = await show(
      'backlinks',
      { scope: 'all', depth: 'overview', trend_months: 12 },
      toolResult(backlinks),
      'backlinks',
    );
    // A backlinks result carries no colours: the competitors are drawn in the palette's, the site in its blue.
    const styles = resultStyles(backlinks.profiles);
    const fills = backlinks.profiles.map((p) => styles.of(p.domain).fill);
    expect(fills).toContain(SITE_COLOR);
    const drawn = await pixels(frame, 'canvas[data-chart="trend"]', fills);
    for (const [color, count] of Object.entries(drawn)) expect([color, count > 20]).toEqual([color, true]);
    const profiles = frame.locator('[data-table="profiles"] tbody tr');
    expect(await profiles.count()).toBe(backlinks.profiles.length);
    const site = backlinks.profiles[0]!;
    expect(await frame.locator(`[data-table="profiles"] tr:has([data-domain="${site.domain}"])`).innerText()).toContain(
      fmtInt(site.summary.referring_domains),
    );
    expect(backlinks.gap.length).toBeGreaterThan(0);
    const shown = await texts(frame, '[data-table="gap"] tbody tr td:nth-child(2)');
    expect(shown).toEqual(backlinks.gap.slice(0, shown.length).map((g) => g.domain));
  });

  it('spend: draws the month’s spend and calls per tool, and the budget beside it', async () => {
    const frame = await show('spend', {}, toolResult(usage), 'spend');
    expect(await frame.locator('[data-total="calls"]').innerText()).toBe(fmtInt(usage.calls));
    expect(await frame.locator('[data-total="cost"]').innerText()).toBe(fmtUsd(usage.cost_usd));
    expect((await texts(frame, '[data-table="by-tool"] tbody tr td:first-child')).sort()).toEqual(
      usage.by_tool.map((line) => line.tool).sort(),
    );
    expect(await texts(frame, '[data-budget] [data-field="limit"]')).toEqual(['no limit', 'no limit']);
    expect(await frame.locator('canvas[data-chart="spend"]').count()).toBe(1);
    // The App shows the budget; setting it is the dashboard's (with a key), so there is no form.
    expect(await frame.locator('form').count()).toBe(0);
  });

  it('search traffic: draws the figures against the window before, the pages, queries, keyword candidates and the refresh queue it is handed', async () => {
    const frame = await show('search_traffic', {}, toolResult(traffic), 'search-traffic');
    expect(await drawnTotals(frame)).toEqual(expectedTotals(traffic));
    expect(await drawnLists(frame)).toEqual(expectedLists(traffic));
    // Most clicks at risk first, as the tool listed them.
    expect(traffic.refresh_queue?.entries.map((e) => e.clicks_at_risk)).toEqual([140, 84, 56]);
    const drawn = await pixels(frame, 'canvas[data-chart="traffic-pages"]', [SITE_COLOR]);
    expect(drawn[SITE_COLOR]).toBeGreaterThan(50);
    // It shows; connecting Search Console is the site owner's (the App has no key), so there is no form.
    expect(await frame.locator('form, [data-search-console]').count()).toBe(0);
  });

  it('search traffic: a site with no Search Console days is said to have none, with the tool’s note on connecting', async () => {
    expect(noTraffic.connected).toBe(false);
    const frame = await show('search_traffic', {}, toolResult(noTraffic), 'search-traffic-not-connected');
    expect(await frame.locator('.empty-title').innerText()).toBe('No Search Console figures yet.');
    expect(await frame.locator('.empty').innerText()).toContain(noTraffic.note ?? 'a note');
    expect(await frame.locator('[data-traffic-totals], canvas').count()).toBe(0);
  });

  it('says which part of a large result a page is, when the host hands it one page (docs/api.md#mcp-results)', async () => {
    const page = { field: 'keywords', offset: 0, returned: 2, total: 914, result_uri: 'cm://results/abc' };
    const frame = await show(
      'keyword_landscape',
      {},
      toolResult({ ...landscape, keywords: landscape.keywords.slice(0, 2), next_cursor: 'abc.2', page }),
      'keyword-landscape-page',
    );
    expect(await frame.locator('.note[role="status"]').innerText()).toBe(
      'This is one page of a large result: keywords 1–2 of 914. The agent reads the rest with next_cursor, or the whole result at cm://results/abc.',
    );
  });

  it('says in words what it cannot draw: an error result, and a result of another shape', async () => {
    const refusal = { error: 'budget_exceeded', code: 'budget_exceeded', message: 'The daily budget is spent' };
    const failed = await show(
      'keyword_landscape',
      {},
      { isError: true, content: [{ type: 'text', text: JSON.stringify(refusal) }] },
      'keyword-landscape-error',
    );
    expect(await failed.locator('[role="alert"]').innerText()).toBe(
      'serp_landscape failed: The daily budget is spent (budget_exceeded)',
    );
    const other = await show('backlinks', {}, toolResult({ rows: [] }), 'backlinks-other-shape');
    expect(await other.locator('[role="alert"]').innerText()).toBe(
      'This App draws a serp_backlinks result, and this result is not one it can draw.',
    );
  });

  it('reached nothing but the host page: no request from any App, and a request it tries is refused by its CSP', async () => {
    const frame = appFrame();
    const refused = await frame.evaluate(() =>
      (globalThis as unknown as { fetch(url: string): Promise<unknown> }).fetch('http://example.org/').then(
        () => 'fetched',
        (error: Error) => error.name,
      ),
    );
    expect(refused).toBe('TypeError');
    expect(host.requests).toEqual([HOST_URL]);
    expect(host.errors.join('\n')).toContain('Content Security Policy');
    expect(host.errors.filter((e) => !e.includes('Content Security Policy'))).toEqual([]);
  });
});
