import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { Finding, ResearchSource, type Findings } from '@cm/contract';
import { SHARED_RESEARCH_MS, utcDay } from '@cm/core';
import {
  sharedId,
  type ResearchJobInput,
  type Shared,
  type SharedDatum,
  type Store,
  type StoredResearch,
} from '@cm/store';
import type { ToolContext } from '../context';
import { storeResearch } from './jobs';

/*
 * Research in the shared cache of public data: a request's findings, kept under the request's identity
 * alone (its normalized query), so an identical request from any site within SHARED_RESEARCH_MS is
 * answered without a provider call. Each site that is answered gets a research record of its own.
 */

const SharedFindings = z.object({
  facts: z.array(Finding),
  opinions: z.array(Finding),
  sources: z.array(ResearchSource),
});

/** The datum of a query's findings fetched on `day`. */
const datumOf = (query: string, day: string): SharedDatum => ({ kind: 'research', key: query, day });

/** The days a window ending at `now` reaches into: today and yesterday (the window is a day). */
const windowDays = (now: Date) => [utcDay(now), utcDay(new Date(now.getTime() - SHARED_RESEARCH_MS))];

/**
 * The shared findings of each query fetched within the window, by query: one batched read of two items
 * per query (today's, else yesterday's). Findings of another provider than the one configured (the
 * sandbox's, on a deployment that now has a real one) answer nothing.
 */
export async function sharedResearch(
  ctx: Pick<ToolContext, 'store' | 'now' | 'researchSource'>,
  queries: readonly string[],
): Promise<Map<string, Shared<Findings>>> {
  const days = windowDays(ctx.now);
  const found = await ctx.store.shared.getMany(
    queries.flatMap((query) => days.map((day) => datumOf(query, day))),
    SharedFindings,
  );
  const since = new Date(ctx.now.getTime() - SHARED_RESEARCH_MS).toISOString();
  const answers = new Map<string, Shared<Findings>>();
  for (const query of queries) {
    const answer = days
      .map((day) => found.get(sharedId(datumOf(query, day))))
      .find((shared) => shared && shared.fetched_at >= since && shared.data_source === ctx.researchSource);
    if (answer) answers.set(query, answer);
  }
  return answers;
}

/** Keeps a job's findings for every site: the provider's answer only, under its query. */
export async function shareResearch(
  store: Store,
  query: string,
  findings: Findings,
  shared: Omit<Shared<unknown>, 'value'>,
) {
  const { facts, opinions, sources } = findings;
  // Kept the cache's 3 days: a lookup late in the next day still reads it.
  await store.shared.put(datumOf(query, utcDay(new Date(shared.fetched_at))), {
    ...shared,
    value: { facts, opinions, sources },
  });
}

/**
 * Answers a site's request with shared findings: a research record of the site's own (its `page_id`,
 * in its recall), dated when the findings were fetched, and a `cached` ledger line at $0 on `meter`.
 * Its id is derived from the site, query and fetch, so identical calls at once write one record.
 */
export async function researchFromShared(
  ctx: Pick<ToolContext, 'siteId' | 'store' | 'meter'>,
  input: ResearchJobInput,
  query: string,
  shared: Shared<Findings>,
): Promise<StoredResearch> {
  const digest = createHash('sha256').update(`${ctx.siteId}\n${query}\n${shared.fetched_at}`).digest('hex');
  const record: StoredResearch = {
    research_id: `res_${digest.slice(0, 20)}`,
    mode: input.mode,
    query: input.query,
    question: input.question,
    page_id: input.page_id,
    data_source: shared.data_source,
    created_at: shared.fetched_at,
    ...shared.value,
  };
  await storeResearch(ctx.store, ctx.siteId, record, query);
  ctx.meter.recordCached({ provider: shared.data_source, endpoint: `research_${input.mode}` });
  return record;
}
