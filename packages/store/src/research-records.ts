import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { JobMode, ResearchRecord } from '@cm/contract';
import { batchGet, batchWrite } from './batch';
import { researchKey, researchQueryKey, researchTermPartition } from './keys';

export interface StoredResearch extends ResearchRecord {
  page_id: number | null;
}

/** Index items read per term by one recall: the newest research with that term. */
const RECALL_TERM_DEPTH = 200;

/** Stored research, an inverted index of its terms for recall, and the latest research of each query. */
export class ResearchStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(siteId: number, record: StoredResearch, terms: readonly string[], queryKey: string): Promise<void> {
    const order = `${record.created_at}#${record.research_id}`;
    await batchWrite(this.db, this.table, [
      { PutRequest: { Item: { ...researchKey(siteId, record.research_id), ...record } } },
      ...terms.map((term) => ({
        PutRequest: {
          Item: { pk: researchTermPartition(siteId, term), sk: order, research_id: record.research_id, mode: record.mode, page_id: record.page_id },
        },
      })),
      { PutRequest: { Item: { ...researchQueryKey(siteId, queryKey), research_id: record.research_id, created_at: record.created_at } } },
    ]);
  }

  async get(siteId: number, researchId: string): Promise<StoredResearch | null> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: researchKey(siteId, researchId) }));
    return out.Item ? recordOf(out.Item) : null;
  }

  /** The latest research of a query, if it was done at or after `since`. */
  async latest(siteId: number, queryKey: string, since: string): Promise<StoredResearch | null> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: researchQueryKey(siteId, queryKey) }));
    if (!out.Item || String(out.Item.created_at) < since) return null;
    return this.get(siteId, String(out.Item.research_id));
  }

  /** Research matching the most terms first, newer first among equals: one Query per term, then one batched read. */
  async recall(siteId: number, terms: readonly string[], filter: { mode?: JobMode; page_id?: number; limit: number }): Promise<StoredResearch[]> {
    const hits = new Map<string, { matches: number; order: string }>();
    await Promise.all(
      terms.map(async (term) => {
        const out = await this.db.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': researchTermPartition(siteId, term) },
            ScanIndexForward: false,
            Limit: RECALL_TERM_DEPTH,
          }),
        );
        for (const item of out.Items ?? []) {
          if (filter.mode && item.mode !== filter.mode) continue;
          if (filter.page_id !== undefined && item.page_id !== filter.page_id) continue;
          const hit = hits.get(String(item.research_id)) ?? { matches: 0, order: String(item.sk) };
          hit.matches += 1;
          hits.set(String(item.research_id), hit);
        }
      }),
    );
    const best = [...hits.entries()]
      .sort((a, b) => b[1].matches - a[1].matches || b[1].order.localeCompare(a[1].order))
      .slice(0, filter.limit)
      .map(([id]) => id);
    const items = await batchGet(this.db, this.table, best.map((id) => researchKey(siteId, id)));
    const byId = new Map(items.map((item) => [String(item.research_id), recordOf(item)]));
    return best.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  }
}

function recordOf(item: Record<string, unknown>): StoredResearch {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record as unknown as StoredResearch;
}
