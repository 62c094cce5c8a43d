import { DeleteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { roundUsd, type UsageDayLine, type UsageEntry, type UsageLine, type UsageReport } from '@cm/contract';
import { batchWrite } from './batch';
import { usageLineAt, usageLineKey, usageLineSk, usagePartition, type Key } from './keys';
import { decodeUsageLine } from './usage.decoder';

/** The usage ledger: every paid provider call, and every answer the shared cache gave instead, by site and time. */
/**
 * How long a ledger line is kept: 400 days, a year of months compared with the year before and some
 * margin; DynamoDB's TTL then deletes it (within days, at no cost).
 */
export const LEDGER_KEEP_SECONDS = 400 * 86_400;

const lineItem = (siteId: number, sk: string, tool: string, call: Omit<UsageEntry, 'tool' | 'at'>, at: string) =>
  ({
    ...usageLineKey(siteId, sk),
    tool,
    ...call,
    at,
    expires_at: Math.floor(Date.parse(at) / 1000) + LEDGER_KEEP_SECONDS,
  }) satisfies UsageEntry & Key & { expires_at: number };

export class UsageStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /**
   * A paid call's pending line, written before the call at its estimate (its held price): the ledger
   * counts it until the run's record settles it, and for good if the run ends first. Answers its id;
   * given `line`, the id another site's share of the same call got, the line takes that id and time.
   */
  async open(
    siteId: number,
    tool: string,
    call: Pick<UsageEntry, 'provider' | 'endpoint' | 'cost_usd'>,
    line?: string,
  ): Promise<string> {
    const at = line ? usageLineAt(line) : new Date().toISOString();
    const sk = line ?? usageLineSk(at);
    await this.db.send(
      new PutCommand({ TableName: this.table, Item: lineItem(siteId, sk, tool, { ...call, pending: true }, at) }),
    );
    return sk;
  }

  /** Deletes a pending line whose call was never made. */
  async release(siteId: number, line: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: usageLineKey(siteId, line) }));
  }

  /**
   * Records a tool's provider calls for a site, at the time of recording; a call that names its pending
   * line (`line`) replaces it, keeping its time, and each line of `released` (its call never reached
   * the provider) is deleted: all in the same batch writes.
   */
  async record(
    siteId: number,
    tool: string,
    calls: ReadonlyArray<Omit<UsageEntry, 'tool' | 'at'> & { line?: string }>,
    at = new Date().toISOString(),
    released: readonly string[] = [],
  ): Promise<void> {
    await batchWrite(this.db, this.table, [
      ...calls.map(({ line, ...call }) => {
        const sk = line ?? usageLineSk(at);
        return { PutRequest: { Item: lineItem(siteId, sk, tool, call, line ? usageLineAt(line) : at) } };
      }),
      ...released.map((sk) => ({ DeleteRequest: { Key: usageLineKey(siteId, sk) } })),
    ]);
  }

  /**
   * Calls and cost per tool and provider from `from` (inclusive) to `to` (exclusive), and with `byDay`
   * also per UTC day: one query of the site's ledger, paged, whatever the grouping.
   */
  async report(siteId: number, from: string, to: string, options: { byDay?: boolean } = {}): Promise<UsageReport> {
    const lines = new Map<string, UsageLine>();
    const days = new Map<string, UsageDayLine>();
    let simulatedUsd = 0;
    const add = <L extends UsageLine>(
      map: Map<string, L>,
      key: string,
      fresh: () => L,
      cost: number,
      item: { cached?: boolean; pending?: boolean },
    ) => {
      const line = map.get(key) ?? fresh();
      line.calls += 1;
      if (item.cached === true) line.cached_calls = (line.cached_calls ?? 0) + 1;
      if (item.pending === true) line.pending_calls = (line.pending_calls ?? 0) + 1;
      line.cost_usd = roundUsd(line.cost_usd + cost);
      map.set(key, line);
    };
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          // Entries at `to` sort after it ("<to>#…" > "<to>"), so BETWEEN leaves them out.
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': usagePartition(siteId), ':from': from, ':to': to },
          ProjectionExpression: 'tool, provider, cost_usd, simulated, cached, pending, #at',
          ExpressionAttributeNames: { '#at': 'at' },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of (out.Items ?? []).map(decodeUsageLine)) {
        const { tool, provider, cost_usd: cost } = item;
        // Simulated money (the sandbox at list prices) has lines of its own, never summed with billed money.
        const simulated = item.simulated === true;
        if (simulated) simulatedUsd += cost;
        const flag = simulated ? { simulated: true as const } : {};
        add(
          lines,
          `${tool}\n${provider}\n${simulated}`,
          () => ({ tool, provider, calls: 0, cost_usd: 0, ...flag }),
          cost,
          item,
        );
        if (options.byDay) {
          const day = item.at.slice(0, 10);
          add(
            days,
            `${day}\n${tool}\n${provider}\n${simulated}`,
            () => ({ day, tool, provider, calls: 0, cost_usd: 0, ...flag }),
            cost,
            item,
          );
        }
      }
      start = out.LastEvaluatedKey;
    } while (start);
    const costliest = (a: UsageLine, b: UsageLine) =>
      b.cost_usd - a.cost_usd || b.calls - a.calls || a.tool.localeCompare(b.tool);
    const byTool = [...lines.values()].sort(costliest);
    return {
      from,
      to,
      calls: byTool.reduce((sum, line) => sum + line.calls, 0),
      cost_usd: roundUsd(byTool.reduce((sum, line) => sum + (line.simulated ? 0 : line.cost_usd), 0)),
      ...(simulatedUsd > 0 ? { simulated_cost_usd: roundUsd(simulatedUsd) } : {}),
      by_tool: byTool,
      ...(options.byDay
        ? { by_day: [...days.values()].sort((a, b) => a.day.localeCompare(b.day) || costliest(a, b)) }
        : {}),
    };
  }
}
