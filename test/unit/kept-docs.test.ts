import zlib from 'node:zlib';
import { CorruptItem } from '@cm/store/errors';
import { encodeJson } from '../../packages/store/src/codec';
import { KEPT_DOC_BYTES_EACH_MAX, KEPT_DOC_BYTES_MAX, KeptDocs } from '../../packages/store/src/kept-docs';
import { decodeDoc } from '../../packages/store/src/pages.decoder';
import { decodeSearchDay } from '../../packages/store/src/search-days.decoder';

/* Documents decoded once per stored bytes: a warm read of an unchanged page or Search Console day skips the gunzip. */

const doc = (slug: string, extra: Record<string, unknown> = {}) => ({
  slug,
  status: 'published',
  updated_at: '2026-11-30T00:00:00.000Z',
  title: `About ${slug}`,
  body: [{ _type: 'paragraph', text: 'Fit first.' }],
  ...extra,
});
const key = (slug: string) => ({ pk: 'SITE#1', sk: `PAGE#article#${slug}` });

afterEach(() => jest.restoreAllMocks());

it('decodes the same stored bytes once, and hands out that document frozen', () => {
  const gunzip = jest.spyOn(zlib, 'gunzipSync');
  const bytes = encodeJson(doc('kept-once'));
  const first = decodeDoc(bytes, key('kept-once'));
  // Bytes equal to those decoded, as a new read of the unchanged item brings them.
  const again = decodeDoc(Buffer.from(bytes), key('kept-once'));
  expect(again).toBe(first);
  expect(gunzip).toHaveBeenCalledTimes(1);
  expect(again).toEqual(doc('kept-once'));
  expect(Object.isFrozen(again)).toBe(true);
  if (!('body' in again)) throw new Error('an article has a body');
  expect(Object.isFrozen(again.body)).toBe(true);
  expect(() => again.body.push({ _type: 'paragraph', text: 'More.' })).toThrow(TypeError);
});

it('decodes other bytes at the same item again: a republish is read as it is', () => {
  const before = decodeDoc(encodeJson(doc('kept-changed')), key('kept-changed'));
  const after = decodeDoc(encodeJson(doc('kept-changed', { title: 'Changed' })), key('kept-changed'));
  expect(before).toMatchObject({ title: 'About kept-changed' });
  expect(after).toMatchObject({ title: 'Changed' });
});

it('keeps no document that fails its check: each read of it fails', () => {
  const bytes = encodeJson({ slug: 'no-status' });
  expect(() => decodeDoc(bytes, key('no-status'))).toThrow(CorruptItem);
  expect(() => decodeDoc(bytes, key('no-status'))).toThrow(CorruptItem);
});

it('keeps documents up to their bytes in all, the oldest going first, and none too large alone', () => {
  const kept = new KeptDocs<string>();
  const decode = jest.fn((bytes: Uint8Array) => `decoded ${bytes.length}`);
  const each = KEPT_DOC_BYTES_EACH_MAX;
  const fits = KEPT_DOC_BYTES_MAX / each;
  const bytesOf = (i: number) => Buffer.alloc(each, i);
  for (let i = 0; i <= fits; i++) kept.get(`item ${i}`, bytesOf(i), decode);
  expect(decode).toHaveBeenCalledTimes(fits + 1);
  // The newest are kept; the first went to make room for the last.
  kept.get(`item ${fits}`, bytesOf(fits), decode);
  kept.get('item 1', bytesOf(1), decode);
  expect(decode).toHaveBeenCalledTimes(fits + 1);
  kept.get('item 0', bytesOf(0), decode);
  expect(decode).toHaveBeenCalledTimes(fits + 2);
  // One over the size of one is decoded at each read.
  const large = Buffer.alloc(each + 1, 1);
  kept.get('large', large, decode);
  kept.get('large', large, decode);
  expect(decode).toHaveBeenCalledTimes(fits + 4);
});

it('keeps a Search Console day as it keeps a page document: decoded once per stored bytes', () => {
  const day = (clicks: number) => ({
    date: '2026-11-20',
    data_state: 'final',
    data_source: 'sandbox',
    imported_at: '2026-11-23T10:00:00.000Z',
    rows: 1,
    totals: { clicks, impressions: 40, position: 3.5 },
    devices: { mobile: { clicks, impressions: 40, position: 3.5 } },
    countries: [],
    pages: [],
    queries: [],
    pairs: [],
    left_out: { pages: 0, queries: 0, pairs: 0 },
  });
  const item = (clicks: number) => ({
    pk: 'SITE#1',
    sk: 'SCDAY#2026-11-20',
    date: '2026-11-20',
    data_state: 'final',
    day: encodeJson(day(clicks)),
  });
  const gunzip = jest.spyOn(zlib, 'gunzipSync');
  const first = decodeSearchDay(item(4));
  const again = decodeSearchDay(item(4));
  expect(again).toBe(first);
  expect(gunzip).toHaveBeenCalledTimes(1);
  expect(Object.isFrozen(again.totals)).toBe(true);
  // The day imported again with other figures is decoded as it now is.
  expect(decodeSearchDay(item(5)).totals.clicks).toBe(5);
  expect(gunzip).toHaveBeenCalledTimes(2);
});
