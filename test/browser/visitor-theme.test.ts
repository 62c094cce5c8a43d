import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromiumFound, launchBrowser } from '../helpers/browser';
import { article, startTestStack, type TestStack } from '../helpers/local';
import { describeWith } from '../helpers/platform';
import { publishShowcase, type Showcase } from '../helpers/visitor-showcase';

/*
 * Visitor pages as readers see them (issue 38), in a real headless Chromium on a phone and a desktop, light
 * and dark: the theme applies under the page's own CSP (no violation), nothing is loaded from anywhere
 * else, the text keeps a readable measure, a phone never scrolls sideways, and the keyboard focus shows.
 * The screenshots of the home, an article and a question page go to docs/screenshots/ (the README shows
 * two); the listing pages' to test-output/screenshots/.
 */

const DOCS_SHOTS = join(__dirname, '..', '..', 'docs', 'screenshots');
const OTHER_SHOTS = join(__dirname, '..', '..', 'test-output', 'screenshots');
const IN_DOCS: readonly string[] = ['home', 'article', 'question'];
const WIDTHS = [390, 1280] as const;
const SCHEMES = ['light', 'dark'] as const;

let t: TestStack;
let browser: Browser;
let showcase: Showcase;

/** The page at `width` in `scheme`, with every request it made and every console error (CSP violations among them). */
async function visit(path: string, width: number, scheme: 'light' | 'dark') {
  const context = await browser.newContext({
    viewport: { width, height: 900 },
    colorScheme: scheme,
    deviceScaleFactor: 1,
  });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(`${t.url}${path}`);
  return { context, page, requests, errors };
}

const style = (page: Page, selector: string, property: string) =>
  page.evaluate(
    ({ selector, property }) => {
      // Runs in the page; the tests' own TypeScript has no DOM types.
      const g = globalThis as unknown as {
        document: { querySelector(s: string): unknown };
        getComputedStyle(el: unknown): Record<string, string>;
      };
      return g.getComputedStyle(g.document.querySelector(selector))[property]!;
    },
    { selector, property },
  );

describeWith(chromiumFound, 'visitor pages in a browser', () => {
  beforeAll(async () => {
    for (const dir of [DOCS_SHOTS, OTHER_SHOTS]) mkdirSync(dir, { recursive: true });
    [browser, t] = await Promise.all([launchBrowser(), startTestStack()]);
    showcase = await publishShowcase(t);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  const pages = (['article', 'question', 'home', 'category', 'topic', 'questions'] as const).map(
    (name) => [name, () => showcase[name]] as const,
  );

  for (const [name, path] of pages)
    for (const width of WIDTHS)
      for (const scheme of SCHEMES)
        it(`shows the ${name} themed at ${width} px, ${scheme}, under its CSP and from its own origin only`, async () => {
          const { context, page, requests, errors } = await visit(path(), width, scheme);
          try {
            expect(errors).toEqual([]);
            // The page itself, and at most the browser's own ask for a favicon, of the same origin.
            expect(requests.filter((url) => !url.startsWith(`${t.url}/`))).toEqual([]);
            expect(await style(page, 'body', 'fontFamily')).toContain('system-ui');
            expect(await style(page, 'body', 'backgroundColor')).toBe(
              scheme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)',
            );
            // Never wider than the screen; a column of about 70 characters on a desktop.
            expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
            const column = Number(await page.evaluate('document.querySelector("main").getBoundingClientRect().width'));
            expect(column).toBeLessThanOrEqual(width === 1280 ? 600 : width);
            if (name === 'article') expect(await style(page, '.stat-bar', 'display')).toBe('grid');
            if (['home', 'category', 'topic', 'questions'].includes(name))
              expect(Number(await page.evaluate('document.querySelectorAll(".entry").length'))).toBeGreaterThan(1);
            const dir = IN_DOCS.includes(name) ? DOCS_SHOTS : OTHER_SHOTS;
            await page.screenshot({ path: join(dir, `visitor-${name}-${width}-${scheme}.png`), fullPage: true });
          } finally {
            await context.close();
          }
        });

  it('shows where the keyboard focus is: the skip link first, with an outline', async () => {
    const { context, page } = await visit(showcase.article, 390, 'light');
    try {
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.className')).toBe('skip');
      expect(await style(page, '.skip', 'outlineStyle')).toBe('solid');
      expect(Number(await page.evaluate('document.activeElement.getBoundingClientRect().left'))).toBeGreaterThanOrEqual(
        0,
      );
    } finally {
      await context.close();
    }
  });

  it("keeps the cover's box whether and whenever its image loads: no layout shift", async () => {
    // The deployment's icon, a square, as the cover: of another shape than the box, and of this origin.
    const published = await t.call('POST', '/articles', article('cover-box', { cover_image: `${t.url}/favicon.ico` }));
    expect(published.status).toBe(201);
    const boxOf = async (loads: boolean) => {
      const context = await browser.newContext({ viewport: { width: 390, height: 900 }, deviceScaleFactor: 1 });
      try {
        const page = await context.newPage();
        if (!loads) await page.route('**/favicon.ico', (route) => route.abort());
        await page.goto(`${t.url}/sites/${t.siteId}/articles/cover-box`, { waitUntil: 'load' });
        // Runs in the page; the tests' own TypeScript has no DOM types.
        return await page.evaluate<{ loaded: boolean; width: number; height: number }>(`(() => {
          const cover = document.querySelector('img.cover');
          const { width, height } = cover.getBoundingClientRect();
          return { loaded: cover.complete && cover.naturalWidth > 0, width, height };
        })()`);
      } finally {
        await context.close();
      }
    };
    // Loaded or not, the box is the one the page had before: the column's width, 1200:630.
    const [loaded, blocked] = [await boxOf(true), await boxOf(false)];
    expect([loaded.loaded, blocked.loaded]).toEqual([true, false]);
    expect(loaded.height).toBeCloseTo((loaded.width * 630) / 1200, 0);
    expect([blocked.width, blocked.height]).toEqual([loaded.width, loaded.height]);
  });

  it('fits a 320 px screen without scrolling sideways', async () => {
    for (const [, path] of pages) {
      const { context, page } = await visit(path(), 320, 'light');
      try {
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320);
      } finally {
        await context.close();
      }
    }
  });
});
