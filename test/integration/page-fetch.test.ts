import { isPublicAddress } from '@cm/core';
import { ProviderError } from '../../packages/providers/src/errors';
import { UrlRefused } from '@cm/providers';
import { fetchReadablePage, type PageFetchOptions } from '../../packages/providers/src/web/page';
import { startTlsSite, TEST_CA, type TlsSite } from '../helpers/tls-site';

/** What the test DNS answers; a name missing here does not resolve. */
const DNS: Record<string, string[]> = {
  'public.test': ['127.0.0.1'],
  'redirect.test': ['127.0.0.1'],
  'other.test': ['127.0.0.1'],
  localhost: ['127.0.0.1'],
  'private.test': ['10.0.0.7'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['127.0.0.1', '192.168.1.4'],
  'v6.test': ['::1'],
};

const ARTICLE = `<!doctype html><html><head><title>How Trail Shoes Are Made | Shoe Blog</title>
<script>window.tracker = "SCRIPT-MARKER";</script></head><body>
<nav class="menu"><a href="/">Home</a> <a href="/shop">Shop NAV-MARKER</a> <a href="/about">About</a></nav>
<main><article><h1>How Trail Shoes Are Made</h1>
<p>Trail shoes start with a last, a foot-shaped form that decides the fit of everything built around it. Makers pick the last first, because the width of the toe box and the height of the heel follow from it.</p>
<p>The outsole comes next: a sticky rubber compound with deep lugs that bite into mud and loose gravel. Harder compounds last longer on rock, softer ones grip better when the ground is wet.</p>
<p>Between the outsole and the foot sits the midsole, usually a foam that trades cushioning against stability. A rock plate may be pressed into it to keep sharp stones from bruising the sole of the foot.</p>
<p>Finally the upper is stitched or welded from mesh and overlays, then lasted onto the sole with cement and heat. Every pair is inspected before it is boxed.</p>
</article></main>
<footer>Copyright Shoe Blog FOOTER-MARKER</footer></body></html>`;

let site: TlsSite;
/** Every request the server saw: a refusal must leave it empty (and the site's connections at 0). */
let requests: Array<{ host: string; path: string; userAgent?: string; accept?: string }>;

beforeAll(async () => {
  site = await startTlsSite('127.0.0.1', (req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const path = req.url ?? '/';
    requests.push({ host, path, userAgent: req.headers['user-agent'], accept: req.headers.accept });
    const redirect = (status: number, location: string) => res.writeHead(status, { location }).end();
    const loop = /^\/loop\/(\d+)$/.exec(path);
    if (path === '/article') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
    else if (path === '/plain')
      res.writeHead(200, { 'content-type': 'text/plain' }).end('Plain   notes,\n\nas they are.');
    else if (path === '/pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.7');
    else if (path === '/png') res.writeHead(200, { 'content-type': 'image/png' }).end('\x89PNG');
    else if (path === '/status/404') res.writeHead(404, { 'content-type': 'text/html' }).end('gone');
    else if (path === '/status/503') res.writeHead(503, { 'content-type': 'text/html' }).end('busy');
    else if (path === '/big-declared')
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '50000' }).end('x'.repeat(50_000));
    else if (path === '/big-endless') {
      // Never ends: only a client that stops reading at the limit gets an answer at all.
      res.writeHead(200, { 'content-type': 'text/html' });
      const more = () => {
        while (!res.destroyed && res.write('<p>' + 'y'.repeat(4096) + '</p>'));
      };
      res.on('drain', more);
      more();
    } else if (path === '/slow')
      return; // never answers
    else if (path === '/good') redirect(302, 'https://public.test/article');
    else if (path === '/to-private') redirect(302, 'https://private.test/article');
    else if (path === '/to-http') redirect(301, 'http://public.test/article');
    else if (loop) redirect(307, `/loop/${Number(loop[1]) + 1}`);
    else res.writeHead(404).end();
  });
});

afterAll(() => site.close());

beforeEach(() => {
  site.connections = 0;
  requests = [];
});

/**
 * The loopback server stands in for the public internet: 127.0.0.1 is allowed, and every other
 * address goes through the real policy (isPublicAddress). URLs carry no port; `port` sends every hop
 * to the test server.
 */
const options = (extra: PageFetchOptions = {}): PageFetchOptions => ({
  ca: TEST_CA,
  port: site.port,
  resolve: async (host) => DNS[host] ?? [],
  isAllowed: (address) => address === '127.0.0.1' || isPublicAddress(address),
  ...extra,
});

/** The error a fetch fails with (the test fails if it succeeds). */
async function failure(url: string, opts: PageFetchOptions = options()): Promise<unknown> {
  try {
    await fetchReadablePage(url, opts);
  } catch (error) {
    return error;
  }
  throw new Error(`${url} was fetched`);
}

async function expectRefused(url: string, opts?: PageFetchOptions, reason?: RegExp): Promise<void> {
  const error = await failure(url, opts);
  expect(error).toBeInstanceOf(UrlRefused);
  if (reason) expect((error as UrlRefused).reason).toMatch(reason);
}

describe('fetchReadablePage', () => {
  it('reads an article: title and readable text without navigation, script or footer, with its headers', async () => {
    const page = await fetchReadablePage('https://public.test/article', options());

    expect(page.url).toBe('https://public.test/article');
    expect(page.title).toBe('How Trail Shoes Are Made');
    expect(page.text).toContain('Trail shoes start with a last, a foot-shaped form');
    expect(page.text).toContain('Every pair is inspected before it is boxed.');
    expect(page.text).not.toMatch(/NAV-MARKER|SCRIPT-MARKER|FOOTER-MARKER/);
    expect(page.text).not.toMatch(/\s{2}|\n/);
    expect(requests).toEqual([
      {
        host: 'public.test',
        path: '/article',
        userAgent: expect.stringMatching(/^content-research-api\//),
        accept: 'text/html,application/xhtml+xml,text/plain',
      },
    ]);
  });

  it('refuses other schemes, credentials and unparsable URLs before connecting', async () => {
    await expectRefused('http://public.test/article', options(), /not an https URL/);
    await expectRefused('ftp://public.test/article');
    await expectRefused('https://user:secret@public.test/article', options(), /credentials/);
    await expectRefused('not a url');
    expect(site.connections).toBe(0);
  });

  it('refuses loopback, IPv6 loopback and metadata literals under the default policy, before connecting', async () => {
    const defaults: PageFetchOptions = { ca: TEST_CA, port: site.port, timeoutMs: 1000 };
    await expectRefused('https://127.0.0.1/article', defaults, /not a public address/);
    await expectRefused('https://[::1]/article', defaults, /not a public address/);
    await expectRefused('https://[::ffff:127.0.0.1]/article', defaults, /not a public address/);
    await expectRefused('https://169.254.169.254/latest/meta-data/', defaults, /not a public address/);
    expect(site.connections).toBe(0);
  });

  it('refuses a name reserved for private hosts even when it resolves to an allowed address', async () => {
    await expectRefused('https://localhost/article', options(), /private host/);
    expect(site.connections).toBe(0);
  });

  it('refuses names resolving to private, metadata or IPv6 loopback addresses, or to nothing, before connecting', async () => {
    const quick = options({ timeoutMs: 1000 });
    await expectRefused('https://private.test/article', quick, /10\.0\.0\.7/);
    await expectRefused('https://metadata.test/latest/meta-data/', quick, /169\.254\.169\.254/);
    await expectRefused('https://v6.test/article', quick, /::1/);
    await expectRefused('https://nowhere.test/article', quick, /does not resolve/);
    expect(site.connections).toBe(0);
  });

  it('refuses a name when any one of its addresses is private', async () => {
    await expectRefused('https://mixed.test/article', options(), /192\.168\.1\.4/);
    expect(site.connections).toBe(0);
  });

  it('connects to the address it checked: a resolver that changes its answer (rebinding) is asked once', async () => {
    const answers = [['127.0.0.1'], ['10.0.0.7']];
    const resolve = jest.fn(async () => answers.shift() ?? []);
    const page = await fetchReadablePage('https://public.test/article', options({ resolve }));
    expect(page.title).toBe('How Trail Shoes Are Made');
    expect(resolve).toHaveBeenCalledTimes(1);
  });

  it('keeps TLS verification on: an untrusted certificate, or one for another name, fails for good', async () => {
    const untrusted = await failure('https://public.test/article', { ...options(), ca: undefined });
    expect(untrusted).toBeInstanceOf(ProviderError);
    expect(untrusted).toMatchObject({ retryable: false, message: expect.stringMatching(/self.signed/i) });
    const wrongName = await failure('https://other.test/article');
    expect(wrongName).toMatchObject({ retryable: false, message: expect.stringMatching(/other\.test/) });
    expect(requests).toEqual([]);
  });

  it('follows a good redirect and reports the final URL', async () => {
    const page = await fetchReadablePage('https://redirect.test/good', options());
    expect(page.url).toBe('https://public.test/article');
    expect(page.title).toBe('How Trail Shoes Are Made');
    expect(requests.map((r) => `${r.host}${r.path}`)).toEqual(['redirect.test/good', 'public.test/article']);
  });

  it('checks every redirect again: to a private name or to http is refused, with no second request', async () => {
    await expectRefused('https://public.test/to-private', options(), /10\.0\.0\.7/);
    await expectRefused('https://public.test/to-http', options(), /not an https URL/);
    expect(requests.map((r) => r.path)).toEqual(['/to-private', '/to-http']);
  });

  it('refuses a redirect chain longer than maxRedirects', async () => {
    await expectRefused('https://public.test/loop/0', options({ maxRedirects: 2 }), /more than 2/);
    expect(requests.map((r) => r.path)).toEqual(['/loop/0', '/loop/1', '/loop/2']);
  });

  it('refuses a body larger than maxBytes, declared or streamed without end', async () => {
    await expectRefused('https://public.test/big-declared', options({ maxBytes: 10_000 }), /larger than 10000 bytes/);
    await expectRefused('https://public.test/big-endless', options({ maxBytes: 10_000 }), /larger than 10000 bytes/);
  });

  it('gives up on a server that never answers within timeoutMs, as a retryable failure', async () => {
    const started = Date.now();
    const error = await failure('https://public.test/slow', options({ timeoutMs: 300 }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ retryable: true, message: expect.stringMatching(/300 ms/) });
    // The server never answers: without the timeout the fetch would wait for jest's own.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(requests.map((r) => r.path)).toEqual(['/slow']);
  });

  it('refuses content that is not a readable page, and reads text/plain as is', async () => {
    await expectRefused('https://public.test/pdf', options(), /not a readable page.*application\/pdf/);
    await expectRefused('https://public.test/png', options(), /not a readable page.*image\/png/);
    expect(await fetchReadablePage('https://public.test/plain', options())).toEqual({
      url: 'https://public.test/plain',
      title: '',
      text: 'Plain notes, as they are.',
    });
  });

  it('fails on a 404 for good and on a 503 retryably', async () => {
    const notFound = await failure('https://public.test/status/404');
    expect(notFound).toBeInstanceOf(ProviderError);
    expect(notFound).toMatchObject({ provider: 'web', retryable: false, code: 404 });
    const busy = await failure('https://public.test/status/503');
    expect(busy).toBeInstanceOf(ProviderError);
    expect(busy).toMatchObject({ provider: 'web', retryable: true, code: 503 });
  });
});
