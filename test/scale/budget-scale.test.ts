import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { utcDay } from '@cm/core';
import { SiteBudget } from '@cm/tools';
import { deploymentSpendKey, DEPLOYMENT_SPEND_SHARDS, spendHoldPartition } from '../../packages/store/src/keys';
import { useTestStack } from '../helpers/local';

/*
 * 20,000 reservations in flight under the deployment's daily cap (the spend every paid call of every site
 * reserves on): each is taken and settled while the rest stay in flight, no budget item grows past a
 * few hundred bytes, and the cap stands under concurrent callers. About 45,000 requests to the embedded
 * DynamoDB, written through the store as SiteBudget makes them.
 */

const t = useTestStack();

const IN_FLIGHT = 20_000;
const ESTIMATE = 0.001;
const BILL = 0.0008;
/** Room for the 20,000 in flight and 100 more. */
const ROOM = 100;
const CAP = (IN_FLIGHT + ROOM) * ESTIMATE;
const PARALLEL = 16;
const EXPIRES = Date.now() + 3_600_000;

/** `work(i)` for each i < n, at most PARALLEL at once: the answers, in order. */
async function bounded<T>(n: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const answers: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < n) {
        const i = next++;
        answers[i] = await work(i);
      }
    }),
  );
  return answers;
}

const size = (item: Record<string, unknown> | undefined) => JSON.stringify(item ?? {}).length;

it(`keeps ${IN_FLIGHT} reservations in flight under the deployment's cap in small items, settles them, and holds the cap under concurrent callers`, async () => {
  const day = utcDay(new Date());
  const { budgets } = t.store;
  const hold = (i: number) => ({ id: `h${i}`, expiresAt: EXPIRES });
  const reserve = (i: number) => budgets.reserve('deployment', day, hold(i), ESTIMATE, { day: CAP });

  const inFlight = await bounded(IN_FLIGHT, reserve);
  expect(inFlight.filter((outcome) => !outcome.reserved)).toEqual([]);
  expect((await budgets.windows('deployment', day)).day).toEqual({
    spent: 0,
    reserved: IN_FLIGHT * ESTIMATE,
    simulated: 0,
  });

  // Twice as many callers as the cap has room for: the room is taken, never more.
  const rush = await bounded(2 * ROOM, (i) => reserve(IN_FLIGHT + i));
  const taken = rush.filter((outcome) => outcome.reserved).length;
  expect(taken).toBeLessThanOrEqual(ROOM);
  // Early only by the callers that raced for the last room.
  expect(taken).toBeGreaterThan(ROOM - PARALLEL);
  const full = (await budgets.windows('deployment', day)).day!;
  expect(full.reserved).toBe(Math.round((IN_FLIGHT + taken) * ESTIMATE * 1e6) / 1e6);
  expect(full.reserved).toBeLessThanOrEqual(CAP);
  // A site's paid call is refused as the cap's budget_exceeded, and places no hold on the site's.
  const site = await t.newSite('Capped');
  const budget = new SiteBudget(t.store, site.siteId, { deploymentDailyUsd: CAP, now: () => new Date() });
  await expect(budget.reserve(2 * ESTIMATE)).rejects.toMatchObject({
    code: 'budget_exceeded',
    extra: { scope: 'deployment' },
  });
  expect((await budgets.windows({ siteId: site.siteId }, day)).day).toMatchObject({ reserved: 0 });

  // No item the budget wrote grows with the reservations in flight.
  const shards = Array.from({ length: DEPLOYMENT_SPEND_SHARDS }, (_v, shard) => deploymentSpendKey(day, shard));
  const counters = await Promise.all(
    shards.map(async (Key) => (await t.db.send(new GetCommand({ TableName: t.stack.tableName, Key }))).Item),
  );
  const holds = await Promise.all(
    shards.map(async (key) => {
      const out = await t.db.send(
        new QueryCommand({
          TableName: t.stack.tableName,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': spendHoldPartition(key) },
          Limit: 100,
        }),
      );
      return out.Items ?? [];
    }),
  );
  expect(holds.flat()).toHaveLength(8 * 100);
  const largest = Math.max(...[...counters, ...holds.flat()].map(size));
  console.log(`scale: ${IN_FLIGHT + taken} reservations in flight; the largest budget item ${largest} bytes`);
  expect(largest).toBeLessThan(1024);

  // Settles, with the rest still in flight: each gives its estimate back and adds its bill.
  const SETTLED = 2000;
  await bounded(SETTLED, (i) => budgets.settle('deployment', day, hold(i), BILL, true));
  expect((await budgets.windows('deployment', day)).day).toEqual({
    spent: SETTLED * BILL,
    reserved: Math.round((IN_FLIGHT + taken - SETTLED) * ESTIMATE * 1e6) / 1e6,
    simulated: SETTLED * BILL,
  });
}, 300_000);
