import { DEFAULT_DEVICE, LIMITS, type Device, type TrackRankingsInput } from '@cm/contract';
import { keywordLocale, utcDay } from '@cm/core';
import { rankCheckPrice } from '@cm/providers';
import { checkKey, keywordUnique, mapLimit } from '@cm/store';
import { reserveWhatFits } from './budget';
import { DATABASE, siteOf, type ToolContext } from './context';
import { callsOf, freeOf, withPlan, type PlanDeps, type ToolPlan } from './plan';
import {
  distinctKeywords,
  monthOf,
  trackedKeywordsIfAny,
  trackedKeywordsOf,
  type ScopeRef,
  type TrackedKeywords,
} from './tracking';

/*
 * track_rankings: turns a topic's or a page's rank tracking on (daily, weekly) or off, sets the site's
 * depth, and answers the site's tracking with what a month of it costs at list prices. Turning a scope
 * on queues its first check, reserved from the budget as add_competitor's first monitoring run is.
 */

/**
 * The device a scope turned on is checked on: the one given, else the one it is tracked on already
 * (one GetItem: a scope tracked before devices were stays desktop), else DEFAULT_DEVICE.
 */
async function deviceOf(ctx: ToolContext, scope: ScopeRef, input: TrackRankingsInput): Promise<Device> {
  if (input.device !== undefined) return input.device;
  return (await ctx.store.ranks.trackedScope(ctx.siteId, scope))?.device ?? DEFAULT_DEVICE;
}

/** The scope the input names, if any. */
const scopeOf = (input: TrackRankingsInput): ScopeRef | null =>
  input.topic_id !== undefined
    ? { type: 'topic', id: input.topic_id }
    : input.page_id !== undefined
      ? { type: 'page', id: input.page_id }
      : null;

/** The setting the input asks of its scope: a topic's max_keywords (default LIMITS.trackKeywordsDefault), none for a page. */
const maxKeywordsOf = (scope: ScopeRef, input: TrackRankingsInput): number | null =>
  scope.type === 'topic' ? (input.max_keywords ?? LIMITS.trackKeywordsDefault) : null;

/**
 * The scope's first check, today, of its keywords not checked today yet: as many as the budget has room
 * for reserved now and carried in the message (so the budget's answer is this call's); the rest are
 * deferred to the next schedule.
 */
async function queueFirstCheck(
  ctx: ToolContext,
  scope: ScopeRef,
  keywords: TrackedKeywords['tracked'],
  setting: { depth: number; device: Device },
): Promise<{ queued: number; deferred: number }> {
  const { depth, device } = setting;
  const day = utcDay(ctx.now);
  const states = await ctx.store.ranks.checksOn(
    ctx.siteId,
    keywords.map((k) => ({ ...k, device })),
    day,
  );
  const open = keywords.filter((k) => !states.has(checkKey(k.locale, k.keyword, device)));
  if (open.length === 0) return { queued: 0, deferred: 0 };
  const unitUsd = ctx.queuedPriceUsd({ rank: depth });
  const { ticket: budget, count } =
    unitUsd > 0 ? await reserveWhatFits(ctx.budget, unitUsd, open.length) : { ticket: null, count: open.length };
  if (count === 0) return { queued: 0, deferred: open.length };
  try {
    await ctx.enqueue('rank', {
      site_id: ctx.siteId,
      day,
      requested_at: ctx.now.toISOString(),
      scopes: [scope],
      ...(budget ? { budget } : {}),
    });
  } catch (error) {
    if (budget) await ctx.budget.settle(budget, 0, false);
    throw error;
  }
  return { queued: count, deferred: open.length - count };
}

/**
 * The site's tracking as the tool answers it: each scope with its keywords, device and month, and the
 * site's total (each keyword once, a month of each of its devices' checks).
 */
async function trackingView(ctx: ToolContext, locale: string) {
  const { depth, scopes } = await ctx.store.ranks.tracking(ctx.siteId);
  const unitUsd = rankCheckPrice(depth);
  const resolved = await mapLimit(scopes, 4, async (scope) => ({
    scope,
    keywords: await trackedKeywordsIfAny(ctx, scope, locale),
  }));
  const live = resolved.flatMap(({ scope, keywords }) => (keywords ? [{ scope, keywords }] : []));
  const tracking = live.map(({ scope, keywords }) => ({
    scope: { type: scope.type, id: scope.id, name: keywords.scope.info.name },
    cadence: scope.cadence,
    device: scope.device,
    max_keywords: scope.max_keywords,
    since: scope.since,
    keywords: keywords.tracked.map((k) => k.keyword),
    ...monthOf(keywords.tracked.length, scope.cadence, unitUsd),
    ...(scope.last_run ? { last_run: scope.last_run } : {}),
  }));
  const distinct = distinctKeywords(
    live.map(({ scope, keywords }) => ({ cadence: scope.cadence, device: scope.device, ...keywords })),
  );
  const months = distinct.map((k) => monthOf(1, k.cadence, unitUsd));
  return {
    tracking,
    depth,
    total: {
      // Keywords, each once whatever its devices; a keyword on both is two checks a day.
      keywords: new Set(distinct.map((k) => keywordUnique(k.locale, k.keyword))).size,
      checks_per_month: Math.round(months.reduce((sum, m) => sum + m.checks_per_month, 0) * 100) / 100,
      usd_per_month: Math.round(months.reduce((sum, m) => sum + m.usd_per_month, 0) * 1e6) / 1e6,
    },
  };
}

async function trackRankingsRun(ctx: ToolContext, input: TrackRankingsInput) {
  const site = await siteOf(ctx);
  const locale = keywordLocale(null, site.locale);
  if (input.depth !== undefined) await ctx.store.ranks.setDepth(ctx.siteId, input.depth, ctx.now.toISOString());
  const scope = scopeOf(input);
  let untracked: TrackedKeywords['untracked'] = [];
  let firstCheck: { queued: number; deferred: number } | null = null;
  if (scope) {
    const maxKeywords = maxKeywordsOf(scope, input);
    // A topic or page that does not exist is 404, stopped or not.
    const keywords = await trackedKeywordsOf(ctx, { ...scope, max_keywords: maxKeywords }, locale);
    if (input.cadence === 'off') await ctx.store.ranks.untrack(ctx.siteId, scope);
    else if (input.cadence !== undefined) {
      const device = await deviceOf(ctx, scope, input);
      await ctx.store.ranks.track(
        ctx.siteId,
        scope,
        { cadence: input.cadence, max_keywords: maxKeywords, device },
        ctx.now,
      );
      await ctx.store.sites.markRankTracking(ctx.siteId);
      untracked = keywords.untracked;
      const depth = input.depth ?? (await ctx.store.ranks.depth(ctx.siteId));
      firstCheck = await queueFirstCheck(ctx, scope, keywords.tracked, { depth, device });
    }
  }
  return {
    data_source: DATABASE,
    ...(await trackingView(ctx, locale)),
    untracked,
    first_check: firstCheck,
  };
}

/**
 * track_rankings with estimate: true: turning a scope on commits to its checks, so its plan is a
 * month of them at list prices (30 days: daily 30 checks a keyword, weekly 30/7, counted up) at the
 * site's depth; the first of them is reserved when the call queues it. Stopping, listing and the
 * depth alone call no provider.
 */
async function planTrackRankings(ctx: ToolContext, input: TrackRankingsInput, deps: PlanDeps): Promise<ToolPlan> {
  const plan: ToolPlan = { data_source: deps.rankSource, calls: [], free: [], notes: [] };
  const scope = scopeOf(input);
  if (!scope || input.cadence === undefined || input.cadence === 'off') {
    plan.notes.push(
      scope
        ? 'stops tracking: no further checks'
        : 'lists the tracking (and sets the depth, when given): no provider call',
    );
    return plan;
  }
  const site = await siteOf(ctx);
  const depth = input.depth ?? (await ctx.store.ranks.depth(ctx.siteId));
  const device = await deviceOf(ctx, scope, input);
  const keywords = await trackedKeywordsOf(
    ctx,
    { ...scope, max_keywords: maxKeywordsOf(scope, input) },
    keywordLocale(null, site.locale),
  );
  const unitUsd = rankCheckPrice(depth);
  const month = monthOf(keywords.tracked.length, input.cadence, unitUsd);
  plan.calls.push(...callsOf(deps.rankSource, 'serp_task_post', Math.ceil(month.checks_per_month), unitUsd));
  plan.free.push(
    ...freeOf(
      'keywords',
      keywords.untracked.map((k) => k.keyword),
      'not tracked: no cm_keywords row, an idea, control characters, or not among the top max_keywords by score',
    ),
  );
  plan.notes.push(
    `${keywords.tracked.length} keywords checked ${input.cadence} on ${device} at the top ${depth} results: about $${month.usd_per_month} a month at list prices; the first check is queued now, and each day's checks are held to the budget as they run`,
  );
  return plan;
}

export const trackRankings = /* @__PURE__ */ withPlan(trackRankingsRun, planTrackRankings);
