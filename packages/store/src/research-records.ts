import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { JobMode } from '@cm/contract';
import { batchGet, batchWrite } from './batch';
import { conditionalUpdate } from './conditional';
import { researchKey, researchQueryKey, researchTermKey, researchTermPartition } from './keys';
import { decodeResearch, decodeResearchQuery, decodeResearchTerm, type StoredResearch } from './research.decoder';
import { Update } from './update';

export type { StoredResearch } from './research.decoder';

/** Where a query stands: its latest research, and the job researching it now, if any. */
export interface QueryState {
  research_id: string | null;
  created_at: string | null;
  pending_job: string | null;
  pending_at: string | null;
}

/** Index items read per term by one recall: the newest research with that term. */
const RECALL_TERM_DEPTH = 200;

/** Stored research, an inverted index of its terms for recall, and the latest research of each query. */
/**
 * How long a research record, its term index and its query's item are kept: 400 days, after which its
 * findings are stale for recall too; DynamoDB's TTL then deletes them.
 */
export const RESEARCH_KEEP_SECONDS = 400 * 86_400;

export class ResearchStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(siteId: number, record: StoredResearch, terms: readonly string[], queryKey: string): Promise<void> {
    const order = `${record.created_at}#${record.research_id}`;
    const expires_at = Math.floor(Date.parse(record.created_at) / 1000) + RESEARCH_KEEP_SECONDS;
    await batchWrite(this.db, this.table, [
      { PutRequest: { Item: { ...researchKey(siteId, record.research_id), ...record, expires_at } } },
      ...terms.map((term) => ({
        PutRequest: {
          Item: {
            ...researchTermKey(siteId, term, order),
            research_id: record.research_id,
            mode: record.mode,
            page_id: record.page_id,
            expires_at,
          },
        },
      })),
      {
        PutRequest: {
          Item: {
            ...researchQueryKey(siteId, queryKey),
            research_id: record.research_id,
            created_at: record.created_at,
            expires_at,
          },
        },
      },
    ]);
  }

  async get(siteId: number, researchId: string): Promise<StoredResearch | null> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: researchKey(siteId, researchId) }));
    return out.Item ? decodeResearch(out.Item) : null;
  }

  /** Research by id, in one batched read; missing ids are left out. */
  async getMany(siteId: number, researchIds: readonly string[]): Promise<Map<string, StoredResearch>> {
    const items = await batchGet(
      this.db,
      this.table,
      [...new Set(researchIds)].map((id) => researchKey(siteId, id)),
    );
    return new Map(items.map(decodeResearch).map((record) => [record.research_id, record]));
  }

  /** Where each query stands, in one batched read, strongly consistent: a caller that lost a claim reads who owns it. */
  async queryStates(siteId: number, queryKeys: readonly string[]): Promise<Map<string, QueryState>> {
    // A long query's key is its digest: each item is matched back to its query by the key asked for.
    const asked = [...new Set(queryKeys)].map((query) => ({ query, key: researchQueryKey(siteId, query) }));
    const queryOf = new Map(asked.map(({ query, key }) => [key.sk, query]));
    const items = await batchGet(
      this.db,
      this.table,
      asked.map(({ key }) => key),
      undefined,
      { consistent: true },
    );
    return new Map(
      items
        .map((item) => decodeResearchQuery(item))
        .map((query) => [
          String(queryOf.get(query.sk)),
          {
            research_id: query.research_id ?? null,
            created_at: query.created_at ?? null,
            pending_job: query.pending_job ?? null,
            pending_at: query.pending_at ?? null,
          },
        ]),
    );
  }

  /**
   * Makes `jobId` the one job researching a query, unless another job claimed it after `staleBefore`:
   * one conditional write, so concurrent callers queue one job. Storing the research ends the claim.
   */
  async claimQuery(
    siteId: number,
    queryKey: string,
    jobId: string,
    now: string,
    staleBefore: string,
  ): Promise<boolean> {
    const claim = new Update()
      .set('pending_job', jobId, { valueKey: 'job' })
      .set('pending_at', now, { valueKey: 'now' })
      // A claim whose job never ends leaves its item: it goes when research records do.
      .set('expires_at', Math.floor(Date.parse(now) / 1000) + RESEARCH_KEEP_SECONDS, { valueKey: 'ttl' });
    claim.when(`${claim.absent('pending_job')} OR ${claim.name('pending_at')} < ${claim.value('stale', staleBefore)}`);
    return (await conditionalUpdate(this.db, this.table, researchQueryKey(siteId, queryKey), claim)).ok;
  }

  /** Ends `jobId`'s claim on a query without research (the job failed), so the next call queues another. */
  async giveBackQuery(siteId: number, queryKey: string, jobId: string): Promise<void> {
    const giveBack = new Update().remove('pending_job', 'pending_at');
    giveBack.when(`${giveBack.name('pending_job')} = ${giveBack.value('job', jobId)}`);
    // Refused: another job claimed it since (this one's claim had gone stale), and that claim stays.
    await conditionalUpdate(this.db, this.table, researchQueryKey(siteId, queryKey), giveBack);
  }

  /**
   * Research indexed under any of `terms`, newest first, each with the terms it matched: one Query per
   * term. Which of them answer the query is core's rule (answeringResearch); `getMany` then reads them.
   */
  async findByTerms(
    siteId: number,
    terms: readonly string[],
    filter: { mode?: JobMode; page_id?: number },
  ): Promise<{ research_id: string; terms: string[] }[]> {
    const hits = new Map<string, { terms: string[]; order: string }>();
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
        for (const entry of (out.Items ?? []).map(decodeResearchTerm)) {
          if (filter.mode && entry.mode !== filter.mode) continue;
          if (filter.page_id !== undefined && entry.page_id !== filter.page_id) continue;
          const hit = hits.get(entry.research_id) ?? { terms: [], order: entry.sk };
          hit.terms.push(term);
          hits.set(entry.research_id, hit);
        }
      }),
    );
    return [...hits.entries()]
      .sort((a, b) => b[1].order.localeCompare(a[1].order))
      .map(([research_id, hit]) => ({ research_id, terms: hit.terms }));
  }
}
