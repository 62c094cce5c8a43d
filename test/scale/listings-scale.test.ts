import { Readable } from 'node:stream';
import { BatchWriteCommand, UpdateCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { PAGE_TYPES, SERVICE_LIMITS } from '@cm/contract';
import { pageId } from '@cm/core';
import { parseSitemap, parseSitemapIndex } from 'sitemap';
import { requestPathCount, siteClient, startTestStack, type TestStack } from '../helpers/local';

/*
 * A site of 100,000 live pages (issue 38): its home, sitemaps and feed each read a bounded part of the
 * index of live pages, never the whole site. The pages are written as their publishes leave their items
 * (the listing attributes only, in batches), 5,000 a month over 20 months.
 */

const PAGES = 100_000;
const MONTHS = 20;

let t: TestStack;
let site: Awaited<ReturnType<typeof siteClient>>;
let siteId: number;
beforeAll(async () => {
  t = await startTestStack();
  site = await siteClient(t, 'Large site');
  siteId = site.siteId;
  // The site began with its first month's pages.
  await t.db.send(
    new UpdateCommand({
      TableName: t.stack.tableName,
      Key: { pk: `SITE#${siteId}`, sk: 'META' },
      UpdateExpression: 'SET created_at = :at',
      ExpressionAttributeValues: { ':at': '2025-01-01T00:00:00.000Z' },
    }),
  );
  const items = Array.from({ length: PAGES }, (_v, i) => {
    const type = i % 4 === 0 ? 'question' : 'article';
    const slug = `page-${i}`;
    const id = pageId(siteId, type, slug);
    const month = Math.floor((i * MONTHS) / PAGES);
    const createdAt = new Date(Date.UTC(2025, month, 1 + (i % 28), 0, 0, i % 60)).toISOString();
    return {
      pk: `SITE#${siteId}`,
      sk: `PAGE#${type}#${id}`,
      id,
      type,
      slug,
      title: `Page ${i}`,
      status: 'published',
      created_at: createdAt,
      visible_at: createdAt,
      card_text: `About page ${i}.`,
      noindex: false,
      listing_sk: `${createdAt}#${id}`,
      gsi5pk: `SITE#${siteId}#LIVE#${type}`,
      gsi5sk: `${createdAt}#${id}`,
      month_pk: `SITE#${siteId}#MONTH#${createdAt.slice(0, 7)}`,
      gsi6pk: `SITE#${siteId}#MONTH#${createdAt.slice(0, 7)}`,
    };
  });
  type Put = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];
  const batches: Put[][] = [];
  for (let i = 0; i < items.length; i += 25)
    batches.push(items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })));
  for (let i = 0; i < batches.length; i += 16)
    await Promise.all(
      batches
        .slice(i, i + 16)
        .map((batch) => t.db.send(new BatchWriteCommand({ RequestItems: { [t.stack.tableName]: batch } }))),
    );
}, 300_000);
afterAll(() => t.stop());

const get = (path: string) => t.call('GET', path, undefined, { key: null });

it('answers the home with one Query per page type, and its older pages with one more each (their Newer link)', async () => {
  await get(`/sites/${siteId}/`);
  const first = await requestPathCount(t, () => get(`/sites/${siteId}/`));
  expect(first.requests).toBe(2);
  // A first page holds its listingPageSize cards at least, and runs on to the next card marked as a page's
  // end (core/listing-breaks.ts), listingPageMax at most.
  const cards = first.result.text.match(/<li class="entry">/g)?.length ?? 0;
  expect(cards).toBeGreaterThanOrEqual(SERVICE_LIMITS.listingPageSize);
  expect(cards).toBeLessThanOrEqual(SERVICE_LIMITS.listingPageMax);
  const older = /<a rel="next" href="[^"]*(\?before=[^"]*)">/.exec(first.result.text)![1]!.replace(/&amp;/g, '&');
  const second = await requestPathCount(t, () => get(`/sites/${siteId}/${older}`));
  // Per page type its own Query, and in parallel one of the 200 places before it (its Newer link).
  expect(second.requests).toBe(4);
  expect(second.result.status).toBe(200);
});

it('answers the sitemap index with one small Query per month, and a month with its pages alone', async () => {
  const now = new Date();
  const monthsSinceStart = (now.getUTCFullYear() - 2025) * 12 + now.getUTCMonth() + 1;
  const index = await requestPathCount(t, () => get(`/sites/${siteId}/sitemap.xml`));
  const listed = (await parseSitemapIndex(Readable.from([index.result.text]))).map((entry) => entry.url);
  expect(listed).toHaveLength(1 + MONTHS);
  // A month with pages: one item of the index by month; one without: that Query, then one per page type.
  expect(index.requests).toBe(MONTHS + 3 * (monthsSinceStart - MONTHS));

  const month = await requestPathCount(t, () => get(`/sites/${siteId}/sitemaps/2025-07.xml`));
  const urls = await parseSitemap(Readable.from([month.result.text]));
  expect(urls).toHaveLength(PAGES / MONTHS);
  // 5,000 pages of the month: a few 1 MB pages of the index, whatever the site's size.
  expect(month.requests).toBeLessThanOrEqual(4);
  console.log(JSON.stringify({ sitemap_index_requests: index.requests, month_sitemap_requests: month.requests }));
});

it('answers the feed with one Query per page type, then a read of each page it carries', async () => {
  // The pages above are their listing attributes only: the feed's latest 20 are published whole (last, as
  // they start a month of their own).
  const bodies = 'Body '.repeat(2_000);
  for (let i = 0; i < SERVICE_LIMITS.feedEntries; i++)
    await site.client.route('POST /articles', {
      body: { slug: `latest-${i}`, title: `Latest ${i}`, body: [{ _type: 'paragraph', text: bodies }] },
    });
  const feed = await requestPathCount(t, () => get(`/sites/${siteId}/feed.xml`));
  expect(feed.requests).toBe(PAGE_TYPES.length + SERVICE_LIMITS.feedEntries);
  expect(feed.result.text.match(/<entry>/g)).toHaveLength(SERVICE_LIMITS.feedEntries);
  expect(feed.result.text.match(/<content type="html">/g)).toHaveLength(SERVICE_LIMITS.feedEntries);
});
