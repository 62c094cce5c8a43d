import { PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conditionFailed } from './batch';
import type { Key } from './keys';

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
  try {
    await db.send(
      new PutCommand({
        TableName: table,
        Item: item,
        ConditionExpression: 'attribute_not_exists(pk) OR attribute_exists(released_at)',
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/** Gives a claim back: only while `runId` still owns it (not given back, not replaced by the work's own item). */
export async function giveBackClaim(
  db: DynamoDBDocumentClient,
  table: string,
  key: Key,
  runId: string,
  now: Date,
): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: table,
        Key: key,
        UpdateExpression: 'SET released_at = :now',
        ConditionExpression: 'run_id = :run AND attribute_not_exists(released_at)',
        ExpressionAttributeValues: { ':now': now.toISOString(), ':run': runId },
      }),
    );
  } catch (error) {
    if (!conditionFailed(error)) throw error;
  }
}
