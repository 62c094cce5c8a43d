import { runInNewContext } from 'node:vm';
import { domainPath } from '@cm/core';
import { SITE_DOMAIN_PARAMETER } from '@cm/contract';
import {
  PAGES_REDIRECT_FUNCTION_CODE,
  SITE_DOMAIN_FUNCTION_CODE,
  TENANT_DOMAIN_FUNCTION_CODE,
} from '../../infra/constructs/site-edge';

/* The CloudFront functions of the pages' distribution and of the API's /sites/*, as CloudFront runs them. */

const OWN = 'd111111abcdef8.cloudfront.net';

/** A function's `handler` given a viewer-request event, as CloudFront runs it. */
function run(code: string, host: string, uri: string, querystring: Record<string, { value: string }> = {}) {
  const event = {
    context: { distributionDomainName: OWN },
    request: { uri, method: 'GET', headers: { host: { value: host } }, querystring },
  };
  return runInNewContext(`${code}\nhandler(event)`, { event });
}
const cloudFront = (host: string, uri: string): string => run(SITE_DOMAIN_FUNCTION_CODE, host, uri).uri;

it.each([
  ['shop.example.com', '/'],
  ['shop.example.com', '/articles/boots'],
  ['Shop.Example.COM', '/questions'],
  ['shop.example.com:443', '/sitemap.xml'],
  ['shop.example.com.', '/feed.xml'],
  ['shop.example.com', '/sitemaps/2026-11.xml'],
  ['xn--bcher-kva.example', '/categories/gear'],
])('passes %s%s on as the local server does', (host, uri) => {
  expect(cloudFront(host, uri)).toBe(domainPath(host, uri));
  expect(cloudFront(host, uri)).toMatch(/^\/domains\/[a-z0-9.-]+(\/|$)/);
});

it.each(['/sites/1/', '/sites/1/articles/boots', '/robots.txt', '/favicon.ico'])(
  "passes %s on as it is at the pages' own address",
  (uri) => expect(cloudFront(OWN, uri)).toBe(uri),
);

it.each(['/', '/v1/usage', '/dashboard', '/articles', '/mcp'])(
  "sends %s at the pages' own address to a host no site serves (a 404), never to the API",
  (uri) => expect(cloudFront(OWN, uri)).toBe(domainPath(OWN, uri)),
);

it("redirects the API's /sites/* to the pages' distribution for good, its query kept", () => {
  const code = PAGES_REDIRECT_FUNCTION_CODE.replace('PAGES_HOST', OWN);
  expect(run(code, 'api.example.com', '/sites/1/', { before: { value: 'WyIyMDI2Il0=' } })).toEqual({
    statusCode: 301,
    statusDescription: 'Moved Permanently',
    headers: { location: { value: `https://${OWN}/sites/1/?before=WyIyMDI2Il0%3D` } },
  });
  expect(run(code, 'api.example.com', '/sites/1/articles/boots').headers.location.value).toBe(
    `https://${OWN}/sites/1/articles/boots`,
  );
});

/** The tenants' function as CloudFront runs it for the tenant whose parameter names `domain`. */
function runAtTenant(domain: string, host: string, uri: string) {
  const [importLine, ...body] = TENANT_DOMAIN_FUNCTION_CODE.split('\n');
  expect(importLine).toBe("import cf from 'cloudfront';");
  const cf = {
    distributionTenant: {
      parameters: { get: (name: string) => (name === SITE_DOMAIN_PARAMETER ? domain : undefined) },
    },
  };
  const event = { context: {}, request: { uri, method: 'GET', headers: { host: { value: host } }, querystring: {} } };
  return runInNewContext(`${body.join('\n')}\nhandler(event)`, { event, cf }).uri;
}

it.each(['/', '/articles/boots', '/sitemap.xml', '/sites/2/'])(
  "passes %s on at a site's domain as the local server does, by the tenant's own domain",
  (uri) => expect(runAtTenant('shop.example.com', 'shop.example.com', uri)).toBe(domainPath('shop.example.com', uri)),
);

it("never lets the request's Host name another site's path: the tenant's parameter decides", () => {
  expect(runAtTenant('shop.example.com', 'blog.example.org', '/articles/boots')).toBe(
    '/domains/shop.example.com/articles/boots',
  );
  expect(runAtTenant('shop.example.com', 'd111111abcdef8.cloudfront.net', '/v1/usage')).toBe(
    '/domains/shop.example.com/v1/usage',
  );
});
