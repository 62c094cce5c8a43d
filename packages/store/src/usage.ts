import { randomBytes } from 'node:crypto';
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { roundUsd, type UsageEntry, type UsageLine, type UsageReport } from '@cm/contract';
import { batchWrite } from './batch';
import { usagePartition, type Key } from './keys';

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
