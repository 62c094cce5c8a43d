import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conditionFailed } from './batch';
import { decodeQuota } from './counters.decoder';
import { quotaKey } from './keys';

/** Daily quotas: one counter item per site, quota and UTC day, changed only by conditional ADDs. */
export class QuotaStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Takes one unit if fewer than `limit` are used; answers how many are used after the attempt. */
  async take(
    siteId: number,
    name: string,
    day: string,
    limit: number,
    expiresAt: number,
  ): Promise<{ taken: boolean; used: number }> {
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: quotaKey(siteId, name, day),
          UpdateExpression: 'ADD used :one SET expires_at = :expires',
          ConditionExpression: 'attribute_not_exists(used) OR used < :limit',
          ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expires': expiresAt },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { taken: true, used: decodeQuota(out.Attributes ?? {}, quotaKey(siteId, name, day)).used ?? 0 };
    } catch (error) {
      if (!conditionFailed(error)) throw error;
      return { taken: false, used: await this.used(siteId, name, day) };
    }
  }

  /** Gives a unit back (its call failed); never below zero. */
  async giveBack(siteId: number, name: string, day: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: quotaKey(siteId, name, day),
          UpdateExpression: 'ADD used :minus',
          ConditionExpression: 'used > :zero',
          ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
        }),
      );
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
  }

  async used(siteId: number, name: string, day: string): Promise<number> {
    const key = quotaKey(siteId, name, day);
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    return (out.Item && decodeQuota(out.Item, key).used) ?? 0;
  }
}
