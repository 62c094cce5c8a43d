import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { roundUsd, type SerpRow, type UsageEntry, type UsageLine, type UsageReport } from '@cm/contract';
import { batchGet, batchWrite, conditionFailed } from './batch';
import { quotaKey, serpKey, usagePartition, type Key } from './keys';

/** Stored SERP competition rows, one per (site, locale, keyword). */
export class SerpStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(siteId: number, row: SerpRow): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: { ...serpKey(siteId, row.locale, row.keyword), ...row } }));
  }

  async get(siteId: number, locale: string, keyword: string): Promise<SerpRow | null> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: serpKey(siteId, locale, keyword) }));
    return out.Item ? serpRowOf(out.Item) : null;
  }

  /** The stored rows of these (locale, keyword) pairs, in batched reads. */
  async getMany(siteId: number, wanted: ReadonlyArray<{ locale: string; keyword: string }>): Promise<SerpRow[]> {
    const keys = new Map(wanted.map((w) => [`${w.locale}#${w.keyword}`, serpKey(siteId, w.locale, w.keyword)]));
    const items = await batchGet(this.db, this.table, [...keys.values()]);
    return items.map(serpRowOf);
  }
}

const serpRowOf = (item: Record<string, unknown>): SerpRow => ({
  keyword: String(item.keyword),
  locale: String(item.locale),
  fetched_at: String(item.fetched_at),
  data_source: String(item.data_source),
  items: item.items as SerpRow['items'],
});

/** The usage ledger: every paid provider call, by site and time. */
export class UsageStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Records a tool's provider calls for a site, at the time of recording. */
  async record(siteId: number, tool: string, calls: ReadonlyArray<Omit<UsageEntry, 'tool' | 'at'>>, at = new Date().toISOString()): Promise<void> {
    await batchWrite(
      this.db,
      this.table,
      calls.map((call) => ({
        PutRequest: {
          Item: { pk: usagePartition(siteId), sk: `${at}#${randomBytes(6).toString('hex')}`, tool, ...call, at } satisfies UsageEntry & Key,
        },
      })),
    );
  }

  /** Calls and cost per tool and provider from `from` (inclusive) to `to` (exclusive). */
  async report(siteId: number, from: string, to: string): Promise<UsageReport> {
    const lines = new Map<string, UsageLine>();
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          // Entries at `to` sort after it ("<to>#…" > "<to>"), so BETWEEN leaves them out.
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': usagePartition(siteId), ':from': from, ':to': to },
          ProjectionExpression: 'tool, provider, cost_usd',
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) {
        const key = `${item.tool}\n${item.provider}`;
        const line = lines.get(key) ?? { tool: String(item.tool), provider: String(item.provider), calls: 0, cost_usd: 0 };
        line.calls += 1;
        line.cost_usd = roundUsd(line.cost_usd + Number(item.cost_usd));
        lines.set(key, line);
      }
      start = out.LastEvaluatedKey;
    } while (start);
    const byTool = [...lines.values()].sort((a, b) => b.cost_usd - a.cost_usd || b.calls - a.calls || a.tool.localeCompare(b.tool));
    return {
      from,
      to,
      calls: byTool.reduce((sum, line) => sum + line.calls, 0),
      cost_usd: roundUsd(byTool.reduce((sum, line) => sum + line.cost_usd, 0)),
      by_tool: byTool,
    };
  }
}

/** Daily quotas: one counter item per site, quota and UTC day, changed only by conditional ADDs. */
export class QuotaStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Takes one unit if fewer than `limit` are used; answers how many are used after the attempt. */
  async take(siteId: number, name: string, day: string, limit: number, expiresAt: number): Promise<{ taken: boolean; used: number }> {
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
      return { taken: true, used: Number(out.Attributes?.used) };
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
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: quotaKey(siteId, name, day), ConsistentRead: true }),
    );
    return Number(out.Item?.used ?? 0);
  }
}
