import { ApiError, LIMITS, type GetKeywordsInput, type KeywordRow, type RowOf } from '@cm/contract';
import { Bug, checkedWithoutData, keywordLocale, normalizeKeyword, splitSeeds } from '@cm/core';
import { mapLimit } from '@cm/store';
import { pageKeywords, rowOrNotFound, rowScore, siteOf, type ToolContext } from './context';
import { metricsCalls, pullMetrics, uniqueOf, type Target } from './keyword-metrics';
import { freeOf, withPlan, type ToolPlan } from './plan';

/**
 * Writes fields onto the keyword rows of these targets: an update where the (locale, keyword) row
 * exists, an insert where it does not (and an update after all when a concurrent call inserted it).
 * `known`: the rows' ids by unique value, when the caller has read them (else they are read here); a row
 * gone since is inserted again.
 */
export async function upsertKeywords(
  ctx: ToolContext,
  writes: ReadonlyArray<{ target: Target; fields: Record<string, unknown> }>,
  newRowDefaults: Record<string, unknown>,
  known?: ReadonlyMap<string, number>,
): Promise<KeywordRow[]> {
  const now = ctx.now.toISOString();
  const rows = ctx.store.rows;
  const ids =
    known ??
    (await rows.idsByUnique(
      ctx.siteId,
      'cm_keywords',
      writes.map((w) => uniqueOf(w.target)),
    ));
  const updated = await mapLimit(writes, 16, async (w) => {
    const id = ids.get(uniqueOf(w.target));
    return { w, row: id === undefined ? null : await rows.update(ctx.siteId, 'cm_keywords', id, w.fields, now) };
  });
  const missing = updated.filter((u) => u.row === null).map((u) => u.w);
  const { created, conflicts } = await rows.insertMany(
    ctx.siteId,
    'cm_keywords',
    missing.map((w) => ({
      keyword: w.target.keyword,
      locale: w.target.locale,
      page_id: null,
      ...newRowDefaults,
      ...w.fields,
    })),
    now,
  );
  const raced = await mapLimit(conflicts, 16, (c) => {
    const write = missing[c.index];
    if (!write) throw new Bug(`insertMany reported a conflict of row ${c.index}, which it was not given`);
    return rows.update(ctx.siteId, 'cm_keywords', c.existingId, write.fields, now);
  });
  return [...updated.flatMap((u) => (u.row ? [u.row] : [])), ...created, ...raced.flatMap((r) => (r ? [r] : []))];
}

/**
 * What get_keywords pulls: the targets (seeds, the keyword row, a topic's keywords and its pages'), and
 * the stored rows checked before without data, which are not fetched again (spec §4.3 rule 4) however
 * they are named. Its run and its estimate both start here.
 */
async function planKeywords(ctx: ToolContext, input: GetKeywordsInput) {
  const site = await siteOf(ctx);
  const keywordRow = input.keyword_id ? await rowOrNotFound(ctx, 'cm_keywords', input.keyword_id) : null;
  const topic = input.topic_id ? await rowOrNotFound(ctx, 'cm_topics', input.topic_id) : null;
  const locale = keywordLocale(keywordRow?.locale, site.locale);
  const scoped = keywordRow !== null || topic !== null;

  const targets = new Map<string, Target>();
  const seedKeys = new Set<string>();
  const add = (keyword: string, targetLocale: string) => {
    const target = { keyword: normalizeKeyword(keyword), locale: targetLocale };
    targets.set(uniqueOf(target), target);
    return uniqueOf(target);
  };
  const { accepted: seeds, rejected: rejectedSeeds } = splitSeeds(input.seeds ?? []);
  // Nothing left to pull: the call would do nothing, so it says why each seed was refused.
  if (seeds.length === 0 && !scoped) {
    const issues = rejectedSeeds.map((r) => ({ path: `seeds[${r.index}]`, message: r.reason }));
    throw new ApiError('validation_failed', issues.map((i) => `body.${i.path}: ${i.message}`).join('; '), { issues });
  }
  for (const seed of seeds) seedKeys.add(add(seed, locale));

  // The stored rows of the targets, by their unique value: the keyword row and a topic's links are read already.
  const stored = new Map<string, KeywordRow>();
  if (keywordRow) stored.set(add(keywordRow.keyword, keywordRow.locale), keywordRow);
  let links: RowOf<'cm_topic_keywords'>[] = [];
  if (topic) {
    links = await ctx.store.rows.byField(ctx.siteId, 'cm_topic_keywords', 'topic_id', topic.id);
    const linked = await ctx.store.rows.getMany(
      ctx.siteId,
      'cm_keywords',
      links.map((l) => l.keyword_id),
    );
    for (const row of linked.values()) stored.set(add(row.keyword, row.locale), row);
    const pages = await ctx.store.rows.byField(ctx.siteId, 'cm_pages', 'topic_id', topic.id);
    for (const keyword of pages.flatMap(pageKeywords)) add(keyword, locale);
  }
  const ids = await ctx.store.rows.idsByUnique(
    ctx.siteId,
    'cm_keywords',
    [...targets.keys()].filter((key) => !stored.has(key)),
  );
  const others = await ctx.store.rows.getMany(ctx.siteId, 'cm_keywords', [...ids.values()]);
  for (const row of others.values()) stored.set(uniqueOf(row), row);
  for (const [key, row] of stored) ids.set(key, row.id);

  // Checked before without data: listed from storage, not fetched (nor paid for) again.
  const checkedEmpty = [...stored.values()].filter((row) => checkedWithoutData(row, ctx.now));
  for (const row of checkedEmpty) targets.delete(uniqueOf(row));
  return { locale, scoped, topic, targets, seedKeys, checkedEmpty, ids, links, rejectedSeeds };
}

/** get_keywords with estimate: true. */
async function planGetKeywords(ctx: ToolContext, input: GetKeywordsInput): Promise<ToolPlan> {
  const plan = await planKeywords(ctx, input);
  const provider = ctx.keywordData.name;
  return {
    data_source: provider,
    calls: metricsCalls(provider, plan.targets.values()),
    free: freeOf(
      'keywords',
      plan.checkedEmpty.map((row) => row.keyword),
      `checked with no data in the last ${LIMITS.noDataRecheckDays} days: not pulled again`,
    ),
    notes: [
      `${plan.targets.size} keywords pulled fresh (get_keywords pulls again all but keywords checked with no data)`,
    ],
  };
}

/** get_keywords: fresh metrics of its targets, upserted; `estimate` is its plan, priced. */
async function getKeywordsRun(ctx: ToolContext, input: GetKeywordsInput) {
  const { locale, scoped, topic, targets, seedKeys, checkedEmpty, ids, links, rejectedSeeds } = await planKeywords(
    ctx,
    input,
  );
  const metrics = await pullMetrics(ctx, [...targets.values()]);
  const checkedAt = ctx.now.toISOString();
  const noData: string[] = [];
  const writes: Array<{ target: Target; fields: Record<string, unknown> }> = [];
  for (const [key, target] of targets) {
    const m = metrics.get(key);
    if (!m) noData.push(target.keyword);
    // Without a topic or keyword row, a seed without data is reported, not stored.
    if (!m && !scoped) continue;
    writes.push({
      target,
      fields: {
        volume: m?.volume ?? 0,
        cpc_usd: m?.cpc_usd ?? null,
        competition: m?.competition ?? null,
        intent: m?.intent ?? null,
        checked_at: checkedAt,
        data_source: ctx.keywordData.name,
        // Attaching a keyword to a topic commits it.
        ...(topic && seedKeys.has(key) ? { is_idea: false } : {}),
      },
    });
  }
  const fetched = await upsertKeywords(ctx, writes, { is_idea: false }, ids);
  // A seed checked before without data is attached all the same, and attaching commits it.
  const unfetched = await mapLimit(checkedEmpty, 16, async (row) =>
    topic && row.is_idea && seedKeys.has(uniqueOf(row))
      ? ((await ctx.store.rows.update(ctx.siteId, 'cm_keywords', row.id, { is_idea: false }, checkedAt)) ?? row)
      : row,
  );

  let attached = 0;
  if (topic) {
    const linkedIds = new Map(links.map((l) => [l.keyword_id, l]));
    const toAttach = [...fetched, ...unfetched].filter((row) => seedKeys.has(uniqueOf(row)) && !linkedIds.has(row.id));
    const { created } = await ctx.store.rows.insertMany(
      ctx.siteId,
      'cm_topic_keywords',
      toAttach.map((row) => ({ topic_id: topic.id, keyword_id: row.id, score: rowScore(row) })),
      checkedAt,
    );
    attached = created.length;
    // Scores of links already there follow the fresh metrics.
    const relinked = fetched.flatMap((row) => {
      const link = linkedIds.get(row.id);
      return link ? [{ link, score: rowScore(row) }] : [];
    });
    await mapLimit(relinked, 16, ({ link, score }) =>
      ctx.store.rows.update(ctx.siteId, 'cm_topic_keywords', link.id, { score }, checkedAt),
    );
  }

  noData.push(...unfetched.map((row) => row.keyword));
  return {
    data_source: ctx.keywordData.name,
    locale,
    keywords: [...fetched, ...unfetched],
    no_data: noData,
    rejected_seeds: rejectedSeeds.map(({ seed, reason }) => ({ seed, reason })),
    topic_id: topic?.id ?? null,
    attached,
  };
}
export const getKeywords = /* @__PURE__ */ withPlan(getKeywordsRun, planGetKeywords);
