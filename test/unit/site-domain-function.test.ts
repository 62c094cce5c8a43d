import { runInNewContext } from 'node:vm';
import { domainPath } from '@cm/core';
import { SITE_DOMAIN_FUNCTION_CODE } from '../../infra/constructs/site-edge';

/* The CloudFront function of the sites' domains and the local server pass a request on the same way. */

/** The function as CloudFront runs it: its `handler` given a viewer-request event. */
function cloudFront(host: string, uri: string): string {
  const event = { request: { uri, method: 'GET', headers: { host: { value: host } }, querystring: {} } };
  return runInNewContext(`${SITE_DOMAIN_FUNCTION_CODE}\nhandler(event)`, { event }).uri;
}

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
