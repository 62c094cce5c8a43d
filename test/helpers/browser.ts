import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { findChromium, machineProbe, NPM_CHROMIUM, type Found } from './platform';

/*
 * A real headless Chromium for the dashboard's tests, with nothing to install by hand on Linux x64:
 * @sparticuz/chromium ships the binary inside its npm package (extracted to /tmp on first use), and
 * playwright-core drives it. Elsewhere CHROMIUM_PATH or a local Chrome serves (test/helpers/platform.ts).
 */

/** The Chromium this machine has, or why none: the browser tests are skipped with that reason. */
export const chromiumFound: Found = findChromium(machineProbe());

/**
 * Flags of @sparticuz/chromium's set (made for Lambda) left out: two would weaken what the tests check
 * (same-origin rules, mixed content), and one process for everything dies with the first closed context.
 */
const LEFT_OUT = new Set(['--disable-web-security', '--allow-running-insecure-content', '--single-process']);

/**
 * Where @sparticuz/chromium put its binary, and its flags. The package is ESM only, which jest's
 * CommonJS runtime cannot load, so a short Node process asks it.
 */
async function sparticuz(): Promise<{ executablePath: string; args: string[] }> {
  const script =
    "const { default: c } = await import('@sparticuz/chromium'); console.log(JSON.stringify({ executablePath: await c.executablePath(), args: c.args }));";
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    cwd: __dirname,
  });
  return JSON.parse(stdout) as { executablePath: string; args: string[] };
}

/** Flags a browser of one's own needs here: no sandbox for root (as CI runs), which Chromium refuses otherwise. */
const localArgs = (): string[] => (process.getuid?.() === 0 ? ['--no-sandbox'] : []);

export async function launchBrowser(): Promise<Browser> {
  if ('skip' in chromiumFound) throw new Error(chromiumFound.skip);
  const { executablePath, args } =
    chromiumFound.via === NPM_CHROMIUM ? await sparticuz() : { executablePath: chromiumFound.path, args: localArgs() };
  return chromium.launch({
    executablePath,
    args: [
      ...args.filter((arg) => !LEFT_OUT.has(arg)),
      // Offline: no update checks, safe-browsing lists or first-run pings of the browser's own.
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
    headless: true,
  });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Every URL the page asked for, in order. */
  requests: string[];
  /** Every request that sent a body (the API's POSTs and PUTs), in order, its JSON body parsed. */
  sent: { method: string; url: string; body: unknown }[];
  /** Console errors (CSP violations are reported there) and uncaught exceptions. */
  errors: string[];
}

/**
 * A page in a fresh context (its own sessionStorage and localStorage) that records its requests and errors.
 * `notFoundAnswers`: paths whose 404 is an answer the page reads (GET /v1/search-console of a site with no
 * connection), which Chromium still logs as a failed load; any other failed load is an error.
 */
export async function watchedPage(
  browser: Browser,
  options: { notFoundAnswers?: readonly string[] } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const watched: WatchedPage = { context, page, requests: [], sent: [], errors: [] };
  page.on('request', (request) => {
    watched.requests.push(request.url());
    const body = request.postData();
    if (body !== null) watched.sent.push({ method: request.method(), url: request.url(), body: JSON.parse(body) });
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const answered =
      message.text().includes('status of 404') &&
      (options.notFoundAnswers ?? []).some((path) => new URL(message.location().url, 'http://x').pathname === path);
    if (!answered) watched.errors.push(message.text());
  });
  page.on('pageerror', (error) => watched.errors.push(`pageerror: ${error.message}`));
  return watched;
}

/**
 * How many pixels of a canvas are `hex` (within `tolerance` per channel): what a chart drew in a
 * colour, read back from the canvas itself.
 */
export async function canvasPixels(
  page: Page,
  selector: string,
  hexes: string[],
  tolerance = 2,
): Promise<Record<string, number>> {
  return page.evaluate(
    ({ selector, hexes, tolerance }) => {
      // Runs in the page; the tests' own TypeScript has no DOM types, so the little it uses is spelled out.
      type Canvas = {
        width: number;
        height: number;
        getContext(kind: '2d'): {
          getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
        };
      };
      const canvas = (
        globalThis as unknown as { document: { querySelector(s: string): Canvas | null } }
      ).document.querySelector(selector);
      if (!canvas) throw new Error(`no canvas ${selector}`);
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      const targets = hexes.map((hex) => [hex, [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))] as const);
      const counts: Record<string, number> = Object.fromEntries(hexes.map((hex) => [hex, 0]));
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3]! < 250) continue;
        for (const [hex, rgb] of targets)
          if (
            Math.abs(data[i]! - rgb[0]!) <= tolerance &&
            Math.abs(data[i + 1]! - rgb[1]!) <= tolerance &&
            Math.abs(data[i + 2]! - rgb[2]!) <= tolerance
          )
            counts[hex]!++;
      }
      return counts;
    },
    { selector, hexes, tolerance },
  );
}

/** A computed CSS property of the element `locator` finds (`rgb(…)` for colours). */
export function computedStyle(locator: Locator, property: string): Promise<string> {
  return locator.evaluate(
    (el, property) =>
      (globalThis as unknown as { getComputedStyle(el: unknown): Record<string, string> }).getComputedStyle(el)[
        property
      ]!,
    property,
  );
}
