import { gzipSync } from 'node:zlib';
import { DASHBOARD_CSP } from '@cm/dashboard';
import { startTestStack, type TestStack } from '../helpers/local';
import { given } from '../helpers/client';

/* The dashboard's page and files as the HTTP API serves them: no site data, a strict CSP, hashed assets cached for good. */

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t.stack.stop());

const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => given(m[1], 'the m[1]'));

describe('dashboard page', () => {
  it('is the same static page for everyone, with no site data, never cached, under a CSP that runs only its own script', async () => {
    const anonymous = await t.call('GET', '/dashboard', undefined, { key: null });
    const withKey = await t.call('GET', '/dashboard');
    expect(anonymous.status).toBe(200);
    expect(anonymous.text).toBe(withKey.text);
    expect(anonymous.text).not.toContain(t.key);
    expect(anonymous.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(anonymous.headers.get('cache-control')).toBe('no-cache');
    expect(anonymous.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).toContain("default-src 'none'");
    expect(DASHBOARD_CSP).not.toContain('unsafe');
    // Nothing inline for the CSP to have to allow: one module script and one stylesheet by URL.
    expect(anonymous.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(anonymous.text).not.toMatch(/<style|style="/);
    expect(assetsOf(anonymous.text).every((url) => url.startsWith('/dashboard/assets/'))).toBe(true);
  });

  it('serves each file the page names by a hashed name, with its type, cached for a year; any other name is 404 in the error shape', async () => {
    const html = (await t.call('GET', '/dashboard')).text;
    const urls = assetsOf(html);
    expect(urls.map((url) => url.replace(/-[\w]{8}\./, '-HASH.'))).toEqual(
      expect.arrayContaining([
        '/dashboard/assets/icon-HASH.svg',
        '/dashboard/assets/main-HASH.css',
        '/dashboard/assets/main-HASH.js',
      ]),
    );
    const types: Record<string, string> = {
      js: 'text/javascript; charset=utf-8',
      css: 'text/css; charset=utf-8',
      svg: 'image/svg+xml',
    };
    for (const url of urls) {
      const res = await fetch(`${t.url}${url}`);
      expect({ url, status: res.status }).toEqual({ url, status: 200 });
      expect(res.headers.get('content-type')).toBe(types[given(url.split('.').pop(), 'the last line')]);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await res.text()).length).toBeGreaterThan(0);
    }
    for (const name of ['main-00000000.js', '..%2F..%2Fpackage.json', 'index.html', '%2Fetc%2Fpasswd']) {
      const res = await t.call('GET', `/dashboard/assets/${name}`, undefined, { key: null });
      expect({ name, status: res.status, code: res.body.code }).toEqual({ name, status: 404, code: 'not_found' });
    }
  });

  it("keeps the app's script small: under 150 KB gzip for the whole first view", async () => {
    const html = (await t.call('GET', '/dashboard')).text;
    const scripts = assetsOf(html).filter((url) => url.endsWith('.js'));
    const bodies = await Promise.all(
      scripts.map(async (url) => Buffer.from(await (await fetch(`${t.url}${url}`)).arrayBuffer())),
    );
    const gzipped = bodies.reduce((sum, body) => sum + gzipSync(body).length, 0);
    expect(gzipped).toBeLessThan(150 * 1024);
  });
});
