import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromiumFound, launchBrowser } from '../helpers/browser';
import { article, question, startTestStack, type TestStack } from '../helpers/local';
import { describeWith } from '../helpers/platform';

/*
 * Visitor pages as readers see them (issue 38), in a real headless Chromium on a phone and a desktop, light
 * and dark: the theme applies under the page's own CSP (no violation), nothing is loaded from anywhere
 * else, the text keeps a readable measure, a phone never scrolls sideways, and the keyboard focus shows.
 * The screenshots go to docs/screenshots/.
 */

const SHOTS = join(__dirname, '..', '..', 'docs', 'screenshots');
const WIDTHS = [390, 1280] as const;
const SCHEMES = ['light', 'dark'] as const;

let t: TestStack;
let browser: Browser;

/** A Portable Text list item. */
const listItem = (style: 'bullet' | 'number', text: string) => ({
  _type: 'block',
  style: 'normal',
  listItem: style,
  children: [{ _type: 'span', text }],
});

/** An article with the README's blocks, a stat bar, Portable Text lists and links, and the other block types. */
async function seed() {
  const related = (await t.call('POST', '/questions', question('how-much-cushioning'))).body.id as string;
  await t.call(
    'POST',
    '/articles',
    article('best-running-shoes', {
      title: 'Best running shoes',
      excerpt: 'Start with fit, then cushioning.',
      category: 'Running shoes',
      related_question_ids: [related],
      body: [
        { _type: 'paragraph', text: 'Start with fit, then cushioning. A shoe that fits is one you will run in.' },
        { _type: 'heading', level: 2, text: 'Why cushioning matters' },
        {
          _type: 'statBar',
          stats: [
            { value: '42%', label: 'fewer knee complaints' },
            { value: '8 mm', label: 'typical heel drop' },
            { value: '500 km', label: 'life of a midsole' },
          ],
        },
        {
          _type: 'block',
          style: 'normal',
          children: [
            { _type: 'span', text: 'Read the ', marks: [] },
            { _type: 'span', text: 'fitting guide', marks: ['k1'] },
            { _type: 'span', text: ' before you buy, and ', marks: [] },
            { _type: 'span', text: 'try both feet', marks: ['strong'] },
            { _type: 'span', text: '.', marks: [] },
          ],
          markDefs: [{ _key: 'k1', _type: 'link', href: 'https://example.com/fit' }],
        },
        listItem('bullet', 'Road: more cushioning'),
        listItem('bullet', 'Trail: more grip'),
        listItem('number', 'Measure in the evening'),
        listItem('number', 'Leave a thumb of room'),
        { _type: 'quote', text: 'The best shoe is the one you forget you are wearing.', cite: 'A coach' },
        { _type: 'callout', tone: 'tip', text: 'Replace shoes every 500 to 800 km.' },
        {
          _type: 'table',
          header: ['Shoe', 'Drop', 'Weight'],
          rows: [
            ['Road trainer', '10 mm', '280 g'],
            ['Trail runner', '6 mm', '310 g'],
          ],
        },
        { _type: 'code', language: 'ts', code: 'const km = weeks * 40;\nif (km > 500) replace(shoes);' },
      ],
    }),
  );
  const q = (
    await t.call(
      'POST',
      '/questions',
      question('how-often-replace-shoes', {
        question: 'How often should I replace running shoes?',
        answer: [
          {
            _type: 'paragraph',
            children: [
              { _type: 'span', text: 'Every 500 to 800 km, sooner when the midsole feels flat' },
              { _type: 'sourceCitation', id: 'src-1' },
              { _type: 'span', text: '.' },
            ],
          },
          { _type: 'list', items: ['Track your distance [src-2]', 'Check the outsole for wear'] },
        ],
        sources: [
          { id: 'src-1', title: 'Running shoe study', url: 'https://example.org/study', accessed_at: '2026-10-01' },
          { id: 'src-2', title: 'Coach handbook', url: 'https://example.org/handbook', accessed_at: '2026-10-02' },
        ],
      }),
    )
  ).body.id as string;
  await t.call('PUT', `/questions/${q}/summary`, { summary: 'About every 500 to 800 km.' });
  await t.call('POST', `/questions/${q}/answers`, {
    author: 'Ann',
    blocks: [{ _type: 'paragraph', text: 'I log every run and replace them at 600 km.' }],
  });
}

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
    mkdirSync(SHOTS, { recursive: true });
    [browser, t] = await Promise.all([launchBrowser(), startTestStack()]);
    await seed();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  const pages = [
    ['article', () => `/sites/${t.siteId}/articles/best-running-shoes`],
    ['question', () => `/sites/${t.siteId}/questions/how-often-replace-shoes`],
  ] as const;

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
            await page.screenshot({ path: join(SHOTS, `visitor-${name}-${width}-${scheme}.png`), fullPage: true });
          } finally {
            await context.close();
          }
        });

  it('shows where the keyboard focus is: the skip link first, with an outline', async () => {
    const { context, page } = await visit(pages[0][1](), 390, 'light');
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
