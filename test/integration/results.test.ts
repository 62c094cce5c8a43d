import { createDocumentClient, createStore, type Store } from '@cm/store';
import { startTestStack, TEST_REQUEST_TIMEOUT_MS, type TestStack } from '../helpers/local';

/* Kept results (MCP pages and resources): a result larger than one item is kept in parts and read back whole, for its site and its time only. */

let t: TestStack;
let store: Store;
beforeAll(async () => {
  t = await startTestStack();
  store = createStore(
    createDocumentClient({ endpoint: t.stack.dynamo.endpoint, requestTimeoutMs: TEST_REQUEST_TIMEOUT_MS }),
    t.stack.tableName,
  );
}, 60_000);
afterAll(() => t.stop());

it('keeps a result of several item-sized parts and reads back the very JSON, multi-byte characters across part ends included', async () => {
  // About 1 MB of UTF-8 with three-byte characters, so part ends fall inside characters.
  const json = JSON.stringify({
    links: Array.from({ length: 9000 }, (_, i) => ({ i, anchor: `€ link ${i} ✓`.repeat(8) })),
  });
  expect(Buffer.byteLength(json)).toBeGreaterThan(3 * 300 * 1024);
  const now = new Date();
  const id = await store.results.keep(t.siteId, 'serp_backlinks', json, now, 60);
  const kept = await store.results.read(t.siteId, id, now);
  expect(kept).toEqual({
    tool: 'serp_backlinks',
    json,
    created_at: now.toISOString(),
    expires_at: Math.floor(now.getTime() / 1000) + 60,
  });
  // Another site's id, and the same one past its time, read as missing.
  expect(await store.results.read(t.siteId + 1, id, now)).toBeNull();
  expect(await store.results.read(t.siteId, id, new Date(now.getTime() + 61_000))).toBeNull();
});
