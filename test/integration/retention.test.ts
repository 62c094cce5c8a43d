import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { LEDGER_KEEP_SECONDS } from '../../packages/store/src/usage';
import { RESEARCH_KEEP_SECONDS } from '../../packages/store/src/research-records';
import {
  rankPartition,
  researchKey,
  researchQueryKey,
  researchTermPartition,
  usagePartition,
} from '../../packages/store/src/keys';
import { startTestStack, type TestStack } from '../helpers/local';

/* What the table keeps and for how long: ledger lines, research records and rank rows carry their DynamoDB TTL. */

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_RESEARCH_MS: '100' } });
});
afterAll(() => t.stop());

const DAY = 86_400;
/** Every item of one partition. */
async function partition(pk: string): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await t.db.send(
    new QueryCommand({
      TableName: t.stack.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
    }),
  );
  return Items;
}

it('keeps a ledger line 400 days and a research record, its term index and its query 400 days, then lets TTL delete them', async () => {
  expect([LEDGER_KEEP_SECONDS, RESEARCH_KEEP_SECONDS]).toEqual([400 * DAY, 400 * DAY]);
  const started = Math.floor(Date.now() / 1000);
  const reply = await t.call('POST', '/v1/tools/research', { mode: 'web', seed: 'how long do canoes last' });
  expect(reply.body.status).toBe('succeeded');
  await t.stack.drain();
  const ended = Math.floor(Date.now() / 1000) + 1;

  const kept = {
    ledger: await partition(usagePartition(t.siteId)),
    research: await partition(researchKey(t.siteId, 'any').pk),
    term: await partition(researchTermPartition(t.siteId, 'canoes')),
    query: await partition(researchQueryKey(t.siteId, 'any').pk),
  };
  for (const [kind, items] of Object.entries(kept)) {
    expect([kind, items.length > 0]).toEqual([kind, true]);
    for (const item of items) {
      const ttl = Number(item.expires_at);
      expect([kind, ttl >= started + 400 * DAY - 1 && ttl <= ended + 400 * DAY]).toEqual([kind, true]);
    }
  }
});

it("keeps a rank check's row, claim and result, 400 days after its day, then lets TTL delete it", async () => {
  const day = '2031-05-06';
  const claim = { siteId: t.siteId, locale: 'US/en', keyword: 'kept keyword', day, runId: 'run-1' };
  expect(await t.store.ranks.claim(claim, new Date(`${day}T06:00:00.000Z`))).toBe(true);
  const dayStart = Date.parse(`${day}T00:00:00.000Z`) / 1000;
  const [claimed] = await partition(rankPartition(t.siteId, 'US/en', 'kept keyword'));
  expect(claimed).toMatchObject({ state: 'claimed', expires_at: dayStart + 400 * DAY });
  await t.store.ranks.put(t.siteId, [
    {
      keyword: 'kept keyword',
      locale: 'US/en',
      device: 'desktop',
      day,
      checked_at: `${day}T06:05:00.000Z`,
      data_source: 'sandbox',
      depth: 20,
      domains: [],
      site_results: [],
    },
  ]);
  const [checked] = await partition(rankPartition(t.siteId, 'US/en', 'kept keyword'));
  expect(checked).toMatchObject({ state: 'checked', expires_at: dayStart + 400 * DAY });
});
