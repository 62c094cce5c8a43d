import { LIMITS } from '@cm/contract';
import {
  articleDoc,
  changedForReaders,
  contentHash,
  indexNowRequests,
  keyOfFile,
  ownHost,
  retryableAnswer,
  urlsOnHost,
} from '@cm/core';

/* IndexNow's rules (docs/api/publishing.md#indexnow): batches, key files, answers, what counts as a change. */

const HOST = 'shop.example.com';
const urls = (count: number) => Array.from({ length: count }, (_, i) => `https://${HOST}/articles/a-${i}`);

describe('IndexNow requests', () => {
  it(`hold ${LIMITS.indexNowUrlsPerRequest} URLs at most, every URL once and in order`, () => {
    const max = LIMITS.indexNowUrlsPerRequest;
    expect(max).toBe(10_000);
    const sizes = (count: number) => indexNowRequests(HOST, 'k'.repeat(32), urls(count)).map((r) => r.urlList.length);
    expect(sizes(0)).toEqual([]);
    expect(sizes(1)).toEqual([1]);
    expect(sizes(max)).toEqual([max]);
    expect(sizes(max + 1)).toEqual([max, 1]);
    expect(sizes(2 * max + 5)).toEqual([max, max, 5]);
    const requests = indexNowRequests(HOST, 'key12345', urls(max + 1));
    expect(requests.flatMap((r) => r.urlList)).toEqual(urls(max + 1));
    expect(requests[1]).toEqual({
      host: HOST,
      key: 'key12345',
      keyLocation: `https://${HOST}/key12345.txt`,
      urlList: [`https://${HOST}/articles/a-${max}`],
    });
  });

  it("keep only the URLs on the site's own domain, each once", () => {
    expect(
      urlsOnHost(HOST, [
        `https://${HOST}/a`,
        `https://${HOST}/a`,
        `http://${HOST}/b`,
        `https://sub.${HOST}/c`,
        `https://${HOST}:8443/d`,
        'https://api.example.net/sites/1/articles/e',
        'not a url',
        `https://${HOST}/`,
      ]),
    ).toEqual([`https://${HOST}/a`, `https://${HOST}/`]);
  });
});

describe('IndexNow key files', () => {
  it('are `<key>.txt`, the key 8 to 128 of letters, digits and -', () => {
    expect(keyOfFile('0123abcd.txt')).toBe('0123abcd');
    expect(keyOfFile(`${'a-B9'.repeat(32)}.txt`)).toBe('a-B9'.repeat(32));
    for (const name of [
      '0123abc.txt',
      `${'a'.repeat(129)}.txt`,
      '0123abcd',
      '0123abcd.TXT',
      'abc_defgh.txt',
      'robots.txt',
    ])
      expect([name, keyOfFile(name)]).toEqual([name, null]);
  });
});

describe('IndexNow answers', () => {
  it('are retried on 429, 5xx and no answer; never on 200, 202, 400, 403 or 422', () => {
    expect([0, 429, 500, 502, 503].map(retryableAnswer)).toEqual([true, true, true, true, true]);
    expect([200, 202, 400, 403, 404, 422].map(retryableAnswer)).toEqual([false, false, false, false, false, false]);
  });
});

describe('a change readers see', () => {
  const published = { status: 'published', deleted: false } as const;
  const draft = { status: 'draft', deleted: false } as const;
  it('is a page going live or down, or a live page whose content changed', () => {
    expect(changedForReaders(null, published, true)).toBe(true);
    expect(changedForReaders(null, draft, true)).toBe(false);
    expect(changedForReaders(published, published, false)).toBe(false);
    expect(changedForReaders(published, published, true)).toBe(true);
    expect(changedForReaders(published, draft, false)).toBe(true);
    expect(changedForReaders(draft, draft, true)).toBe(false);
    expect(changedForReaders({ status: 'published', deleted: true }, published, false)).toBe(true);
  });

  it("leaves the editor's date out of the content: the same page dated anew is the same content", () => {
    const page = (title: string, at: string) => articleDoc({ slug: 's', title, body: [] }, at);
    expect(contentHash(page('A', '2026-01-01T00:00:00.000Z'))).toBe(contentHash(page('A', '2026-02-01T00:00:00.000Z')));
    expect(contentHash(page('A', '2026-01-01T00:00:00.000Z'))).not.toBe(
      contentHash(page('B', '2026-01-01T00:00:00.000Z')),
    );
  });
});

describe("a site's own host", () => {
  it('is the host of a root at a domain of its own; a root under the deployment’s address has none', () => {
    expect(ownHost('https://shop.example.com')).toBe('shop.example.com');
    expect(ownHost('https://api.example.net/sites/7')).toBeNull();
    expect(ownHost('http://shop.example.com')).toBeNull();
    expect(ownHost('not a root')).toBeNull();
  });
});
