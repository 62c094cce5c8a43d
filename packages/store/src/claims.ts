import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conditionalUpdate, conditionalWrite } from './conditional';
import type { Key } from './keys';
import { Update } from './update';

/*
 * A day's paid work claimed once (a monitoring run's domain, a rank check): one conditional put of the
 * claim's item before it is paid for, and given back (so another run may take it) while its run still owns it.
 */

/**
 * Puts the claim `item` (with `run_id` and its expiry): false when another run owns it (it did the work,
 * or does it now). A claim given back (its item marked `released_at`, the stored name) is taken again.
 */
export async function takeClaim(
  db: DynamoDBDocumentClient,
  table: string,
  item: Key & { run_id: string } & Record<string, unknown>,
): Promise<boolean> {
  const put = new PutCommand({
    TableName: table,
    Item: item,
    ConditionExpression: 'attribute_not_exists(pk) OR attribute_exists(released_at)',
  });
  return (await conditionalWrite(db, put)).ok;
}

/** Gives a claim back: only while `runId` still owns it (not given back, not replaced by the work's own item). */
export async function giveBackClaim(
  db: DynamoDBDocumentClient,
  table: string,
  key: Key,
  runId: string,
  now: Date,
): Promise<void> {
  const release = new Update().set('released_at', now.toISOString(), { valueKey: 'now' });
  release.when(`${release.name('run_id')} = ${release.value('run', runId)} AND ${release.absent('released_at')}`);
  // Refused: another run owns it now, or it was given back already; either way nothing is left to give.
  await conditionalUpdate(db, table, key, release);
}
