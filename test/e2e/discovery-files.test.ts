import { ROUTE_TABLE } from '@cm/contract';
import { CRAWLABLE_PATHS, SITES_PREFIX } from '@cm/core';
import { useTestStack } from '../helpers/local';
import { given } from '../helpers/client';

/* What browsers and crawlers ask every host for: robots.txt (the visitor pages may be crawled, nothing else) and the icon. */

const t = useTestStack();

/** What RFC 9309 makes of a path here: the longest matching rule decides, Allow on a tie. */
function allowed(robots: string, path: string): boolean {
  const rules = robots
    .split('\n')
    .map((line) => /^(Allow|Disallow):\s*(\S*)$/.exec(line))
    .flatMap((m) => (m ? [{ allow: m[1] === 'Allow', prefix: given(m[2], 'the m[2]') }] : []))
    .filter((rule) => rule.prefix !== '' && path.startsWith(rule.prefix))
    .sort((a, b) => b.prefix.length - a.prefix.length || Number(b.allow) - Number(a.allow));
  return rules[0]?.allow ?? true;
}

it("lets crawlers read every site's pages and files and the icon, and no route of the API, MCP or the dashboard, as plain text any cache may keep", async () => {
  const reply = await t.call('GET', '/robots.txt', undefined, { key: null });
  expect(reply.status).toBe(200);
  expect(reply.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  expect(reply.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
  expect(reply.text.split('\n')[0]).toBe('User-agent: *');
  for (const route of ROUTE_TABLE) {
    if (route.path === '/robots.txt') continue;
    const path = route.path.replace(/\{[^}]+\}/g, 'x');
    expect([route.path, allowed(reply.text, path)]).toEqual([
      route.path,
      route.path.startsWith(SITES_PREFIX) || CRAWLABLE_PATHS.includes(route.path),
    ]);
  }
});

it('answers the icon browsers ask every site for, so a reader’s console shows no failed request', async () => {
  const reply = await t.call('GET', '/favicon.ico', undefined, { key: null });
  expect(reply.status).toBe(200);
  expect(reply.headers.get('content-type')).toBe('image/svg+xml');
  expect(reply.headers.get('cache-control')).toBe('public, max-age=86400');
  expect(reply.text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/);
});
