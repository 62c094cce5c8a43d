import { createHash, randomBytes } from 'node:crypto';
import { ApiError, roundUsd, type BudgetTicket, type MonitorMessage, type MonitorPlanMessage } from '@cm/contract';
import { normalizeDomain, utcDay } from '@cm/core';
import { ProviderError, type BacklinkDataProvider, type Meter } from '@cm/providers';
import { mapLimit, type BacklinkSnapshot, type MonitorClaim, type Store } from '@cm/store';
import type { SiteBudget } from './budget';
import { competitorDomains, type ToolContext } from './context';

/*
 * Monitoring: the daily schedule fans out (schedule → a plan message per block of sites → a monitoring
 * message per site), and each site's run claims each domain's paid work of the day before paying for it.
 */

/** Gap domains the site's monitoring run keeps, strongest first. */
export const GAP_LIMIT = 100;
/** Sites per plan message: the schedule sends one message per block, the plan worker one monitoring message per site of it. */
export const SITES_PER_PLAN = 100;
/** Domains a site's run monitors at once: each takes five or six backlink calls. */
const DOMAINS_AT_ONCE = 4;
/** Messages a schedule or plan sends at once. */
const SENDS_AT_ONCE = 16;

const isBudgetExceeded = (error: unknown) => error instanceof ApiError && error.code === 'budget_exceeded';

/** The list price of monitoring `domains` of a site whose own domain is `siteDomain`. */
const monitorPrice = (
  queuedPriceUsd: ToolContext['queuedPriceUsd'],
  siteDomain: string | null,
  domains: readonly string[],
): number =>
  roundUsd(
    domains.reduce(
      (sum, domain) => sum + queuedPriceUsd({ monitor: domain === siteDomain ? 'site' : 'competitor' }),
      0,
    ),
  );

/**
 * add_competitor's first monitoring run of `domains`, reserved from the site's budget now, so the call
 * can say when the budget has no room: then nothing is queued (the next daily schedule tries again).
 * Answers how many domains' runs the budget deferred.
 */
export async function queueMonitoring(
  ctx: Pick<ToolContext, 'enqueue' | 'budget' | 'queuedPriceUsd'>,
  siteId: number,
  siteDomain: string | null,
  domains: readonly string[],
  requestedAt: string,
): Promise<number> {
  let budget: BudgetTicket | null;
  try {
    budget = await ctx.budget.reserveQueued(monitorPrice(ctx.queuedPriceUsd, siteDomain, domains));
  } catch (error) {
    if (isBudgetExceeded(error)) return domains.length;
    throw error;
  }
  try {
    await ctx.enqueue('monitor', {
      site_id: siteId,
      domains: [...domains],
      requested_at: requestedAt,
      ...(budget ? { budget } : {}),
    });
  } catch (error) {
    if (budget) await ctx.budget.settle(budget, 0, false);
    throw error;
  }
  return 0;
}

export interface ScheduleDeps {
  store: Store;
  enqueue: ToolContext['enqueue'];
  now: Date;
}

/**
 * The daily schedule: one read of the site sequence, then one plan message per block of
 * SITES_PER_PLAN site ids. It walks no site, so it ends in seconds however many sites there are;
 * run again (a retried invocation, a rerun), it sends the same blocks, and the runs' claims keep
 * anything from being paid twice.
 */
export async function scheduleMonitoring(deps: ScheduleDeps): Promise<{ sites: number; plans: number }> {
  const last = await deps.store.sites.lastId();
  const firsts = Array.from({ length: Math.ceil(last / SITES_PER_PLAN) }, (_v, i) => 1 + i * SITES_PER_PLAN);
  await mapLimit(firsts, SENDS_AT_ONCE, (first) =>
    deps.enqueue('monitor-plan', {
      first_site_id: first,
      last_site_id: Math.min(last, first + SITES_PER_PLAN - 1),
      requested_at: deps.now.toISOString(),
    }),
  );
  return { sites: last, plans: firsts.length };
}

/**
 * A plan message: its block's sites, read with one BatchGetItem, and one monitoring message per site
 * (an id with no site gets none), and one rank message for each site that tracks rankings, its check
 * day the schedule's. Delivered again, it sends them again, which the runs' claims make harmless.
 */
export async function planMonitoring(
  deps: Pick<ScheduleDeps, 'store' | 'enqueue'>,
  message: MonitorPlanMessage,
): Promise<number> {
  const count = Math.max(0, message.last_site_id - message.first_site_id + 1);
  const sites = await deps.store.sites.getMany(Array.from({ length: count }, (_v, i) => message.first_site_id + i));
  const day = utcDay(new Date(message.requested_at));
  await mapLimit(sites, SENDS_AT_ONCE, async (site) => {
    await deps.enqueue('monitor', { site_id: site.site_id, requested_at: message.requested_at, day });
    if (site.rank_tracking)
      await deps.enqueue('rank', { site_id: site.site_id, day, requested_at: message.requested_at });
  });
  return sites.length;
}

export interface MonitorDeps {
  store: Store;
  backlinkData: BacklinkDataProvider;
  meter: Meter;
  now: Date;
  /** The message's site's budget: a scheduled run reserves from it after claiming; add_competitor's run settles its ticket. */
  budget: SiteBudget;
  queuedPriceUsd: ToolContext['queuedPriceUsd'];
}

/** What a site's run did: domains monitored, found claimed by another run, skipped (a provider refusal), and deferred by the budget. */
export interface MonitorOutcome {
  monitored: string[];
  claimedAlready: string[];
  skipped: Array<{ domain: string; reason: string }>;
  deferred: number;
}

/**
 * The work a claim names: the day, and for the site's own domain the competitors its link gap is
 * against, so a competitor added later that day pays for a new gap once, and nothing else twice.
 */
function workOf(day: string, domain: string, siteDomain: string | null, competitors: readonly string[]): string {
  if (domain !== siteDomain) return day;
  const against = createHash('sha256')
    .update([...competitors].sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
  return `${day}#${against}`;
}

const takenBy = (result: PromiseSettledResult<boolean> | undefined) => result?.status === 'fulfilled' && result.value;

type DomainResult =
  | { claim: MonitorClaim; snapshot: BacklinkSnapshot }
  | { claim: MonitorClaim; skipped: string }
  | { claim: MonitorClaim; failed: unknown; retry: boolean };

/** One domain's snapshot; every failure is an answer, so the other domains' calls still reach the ledger. */
async function takeSnapshot(
  deps: MonitorDeps,
  claim: MonitorClaim,
  isSite: boolean,
  competitors: readonly string[],
  day: string,
): Promise<DomainResult> {
  const { domain } = claim;
  try {
    const profile = await deps.backlinkData.profile(domain, deps.meter);
    const gap =
      isSite && competitors.length > 0
        ? await deps.backlinkData.linkGap(domain, competitors, GAP_LIMIT, deps.meter)
        : undefined;
    const snapshot: BacklinkSnapshot = {
      domain,
      day,
      taken_at: deps.now.toISOString(),
      data_source: deps.backlinkData.name,
      profile,
      ...(gap ? { gap } : {}),
    };
    return { claim, snapshot };
  } catch (error) {
    if (error instanceof ProviderError && !error.retryable) return { claim, skipped: error.message };
    // Only a provider failure worth retrying gives its claim back; after anything else, what was paid is unknown.
    return { claim, failed: error, retry: error instanceof ProviderError };
  }
}

/**
 * A site's monitoring run: a snapshot of each domain it still tracks, dated the schedule's day (its own, with its link gap
 * against the competitors tracked now, and each active competitor's; a deleted competitor's run
 * stores nothing). Before any provider call, each domain's work of the day is claimed with one
 * conditional write, and only what this run claimed is paid for, so a redelivered message, a rerun
 * schedule or a retried invocation never pays twice. A scheduled run then reserves the claimed
 * domains' price; a budget with no room gives the claims back and defers them to the next schedule.
 * The calls go into the ledger before anything else can fail. A provider failure worth retrying gives
 * its domain's claim back and throws, so the queue delivers the message again and only that domain
 * runs; any other provider failure skips the domain until the next schedule.
 */
export async function runMonitor(deps: MonitorDeps, message: MonitorMessage): Promise<MonitorOutcome> {
  const outcome: MonitorOutcome = { monitored: [], claimedAlready: [], skipped: [], deferred: 0 };
  const { store, now, meter } = deps;
  let ticket = message.budget ?? null;
  try {
    const site = await store.sites.get(message.site_id);
    if (!site) return outcome;
    const siteId = site.site_id;
    const siteDomain = normalizeDomain(site.domain);
    const competitors = await competitorDomains({ siteId, store });
    // Paused competitor monitoring (PUT /v1/monitoring) leaves the site's own domain, and its link gap.
    const tracked = [...(siteDomain ? [siteDomain] : []), ...(site.competitors_paused_at ? [] : competitors)];
    const asked = message.domains;
    const domains = asked ? tracked.filter((domain) => asked.includes(domain)) : tracked;
    const runId = randomBytes(9).toString('hex');
    // The schedule's day (npm run schedule -- --date runs a later one), else today's.
    const day = message.day ?? utcDay(now);
    const claims = domains.map((domain) => ({
      siteId,
      domain,
      work: workOf(day, domain, siteDomain, competitors),
      runId,
    }));
    const taken = await Promise.allSettled(claims.map((claim) => store.backlinks.claim(claim, now)));
    const claimed = claims.filter((_claim, i) => takenBy(taken[i]));
    const refused = taken.find((result) => result.status === 'rejected');
    if (refused) {
      // A claim that could not be written fails the run before anything is paid: the ones taken go back.
      await Promise.all(claimed.map((claim) => store.backlinks.giveBack(claim, now)));
      throw refused.reason;
    }
    outcome.claimedAlready = claims.filter((_claim, i) => !takenBy(taken[i])).map((claim) => claim.domain);
    if (claimed.length === 0) return outcome;

    try {
      ticket ??= await deps.budget.reserveQueued(
        monitorPrice(
          deps.queuedPriceUsd,
          siteDomain,
          claimed.map((claim) => claim.domain),
        ),
      );
    } catch (error) {
      // Nothing was paid: the claims go back, for a rerun or the next schedule.
      await Promise.all(claimed.map((claim) => store.backlinks.giveBack(claim, now)));
      if (!isBudgetExceeded(error)) throw error;
      outcome.deferred = claimed.length;
      return outcome;
    }

    const results = await mapLimit(claimed, DOMAINS_AT_ONCE, (claim) =>
      takeSnapshot(deps, claim, claim.domain === siteDomain, competitors, day),
    );
    const retries = results.flatMap((r) => ('retry' in r && r.retry ? [r.claim] : []));
    try {
      // The ledger first: the calls were made, whatever fails next.
      if (meter.calls.length > 0) await store.usage.record(siteId, 'monitor', meter.calls);
      const snapshots = results.flatMap((r) => ('snapshot' in r ? [r.snapshot] : []));
      await store.backlinks.put(siteId, snapshots);
      outcome.monitored = snapshots.map((snapshot) => snapshot.domain);
      outcome.skipped = results.flatMap((r) => ('skipped' in r ? [{ domain: r.claim.domain, reason: r.skipped }] : []));
    } finally {
      await Promise.all(retries.map((claim) => store.backlinks.giveBack(claim, now)));
    }
    const failed = results.find((r) => 'failed' in r);
    if (failed && 'failed' in failed) throw failed.failed;
    return outcome;
  } finally {
    // Settled once the run is over, to what it cost (0 when another run had claimed everything).
    if (ticket) await deps.budget.settle(ticket, meter.costUsd, meter.simulated);
  }
}
