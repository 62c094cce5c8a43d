import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { LEDGER_KEEP_SECONDS } from '../../packages/store/src/usage';
import { RESEARCH_KEEP_SECONDS } from '../../packages/store/src/research-records';
import { researchKey, researchQueryKey, researchTermPartition, usagePartition } from '../../packages/store/src/keys';
import { startTestStack, type TestStack } from '../helpers/local';

/* What the table keeps and for how long: ledger lines and research records carry their DynamoDB TTL. */

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
