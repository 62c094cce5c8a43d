import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conditionalUpdate } from './conditional';
import { decodeQuota } from './counters.decoder';
import { quotaKey } from './keys';
import { Update } from './update';

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
    const key = quotaKey(siteId, name, day);
    const take = new Update().add('used', 1, { valueKey: 'one' }).set('expires_at', expiresAt, { valueKey: 'expires' });
    take.when(`${take.absent('used')} OR ${take.name('used')} < ${take.value('limit', limit)}`);
    const taken = await conditionalUpdate(this.db, this.table, key, take, {
      returns: 'UPDATED_NEW',
      decode: (item) => decodeQuota(item, key).used ?? 0,
    });
    // Refused: the quota is used up; one read says how far.
    return taken.ok
      ? { taken: true, used: taken.attributes }
      : { taken: false, used: await this.used(siteId, name, day) };
  }

  /** Gives a unit back (its call failed); never below zero. */
  async giveBack(siteId: number, name: string, day: string): Promise<void> {
    const giveBack = new Update().add('used', -1, { valueKey: 'minus' });
    giveBack.when(`${giveBack.name('used')} > ${giveBack.value('zero', 0)}`);
    // Refused at zero: nothing is left to give back.
    await conditionalUpdate(this.db, this.table, quotaKey(siteId, name, day), giveBack);
  }

  async used(siteId: number, name: string, day: string): Promise<number> {
    const key = quotaKey(siteId, name, day);
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    return (out.Item && decodeQuota(out.Item, key).used) ?? 0;
  }
}
