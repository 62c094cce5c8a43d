import { createHash, randomBytes } from 'node:crypto';
import {
  ApiError,
  LIMITS,
  roundUsd,
  type BacklinkNumbers,
  type BudgetTicket,
  type MonitorMessage,
  type MonitorPlanMessage,
} from '@cm/contract';
import {
  DETAIL_REFRESH,
  detailDue,
  extendTrend,
  normalizeDomain,
  searchConsoleToday,
  searchPlanDays,
  utcDay,
} from '@cm/core';
import { ProviderError, type BacklinkDataProvider, type Meter, type ProviderCall } from '@cm/providers';
import {
  mapLimit,
  type BacklinkSnapshot,
  type MonitorClaim,
  type SearchConsoleConnection,
  type Site,
  type Store,
} from '@cm/store';
import { cachedNumbers, claimNumbers, fetchNumbers, giveBackNumbers } from './backlink-numbers';
import type { SiteBudget } from './budget';
import { competitorDomains, type ToolContext } from './context';
import { recordCalls } from './ledger';
import { queueBackfill } from './search-console';

/*
 * Monitoring: the daily schedule fans out (schedule → a plan message per block of sites → a monitoring
 * message per site). The plan pays the block's daily numbers once across sites, in bulk; each site's
 * run claims its snapshots of the day and composes them from those numbers, its trend and its detail.
 */

/** Gap domains the site's monitoring run keeps, strongest first. */
export const GAP_LIMIT = 100;
/** Sites per plan message: the schedule sends one message per block, the plan worker one monitoring message per site of it. */
export const SITES_PER_PLAN = 100;
/** Domains a site's run snapshots at once: a domain's trend or detail may take a few backlink calls. */
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

/** The domains a site's monitoring tracks: its own, then its active competitors' (none while paused, as its run does). */
async function trackedDomains(store: Store, site: Site): Promise<string[]> {
  const siteDomain = site.domain ? normalizeDomain(site.domain) : null;
  const competitors = site.competitors_paused_at ? [] : await competitorDomains({ siteId: site.site_id, store });
  return [...new Set([...(siteDomain ? [siteDomain] : []), ...competitors])];
}

export interface MonitorPlanDeps extends ScheduleDeps {
  backlinkData: BacklinkDataProvider;
  /** Whether the sandbox charges list prices (SANDBOX_LIST_PRICES=1), as the workers' meters do. */
  listPrices: boolean;
  /** The worker's deadline: past it no bulk request starts, and those in flight are cut. */
  signal?: AbortSignal;
  /** A site's budget: the rows the site pays for are reserved from it (and the deployment's cap) before the requests. */
  budgetOf(siteId: number): SiteBudget;
  queuedPriceUsd: ToolContext['queuedPriceUsd'];
}

/** Looks at the cache again this many times, PLAN_WAIT_MS apart, for numbers another plan fetches now. */
const PLAN_WAITS = 10;
const PLAN_WAIT_MS = 1000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each domain's paying site: the first of the block's sites that monitors it. */
function payers(tracked: ReadonlyArray<{ siteId: number; domains: readonly string[] }>): Map<string, number> {
  const payerOf = new Map<string, number>();
  for (const { siteId, domains } of tracked) for (const d of domains) if (!payerOf.has(d)) payerOf.set(d, siteId);
  return payerOf;
}

/**
 * The daily numbers of every domain a block of sites monitors, paid once across all sites: the cache's
 * if another run has them today; else claimed, reserved from the paying site's budget (the first of
 * the block's sites that monitors the domain), fetched in bulk requests of BULK_TARGETS domains, and
 * each row's share of its request's bill recorded in the paying site's ledger. A site with no room
 * gives its domains back (its own run then finds its budget full). Answers the domains charged to
 * each site, and waits a little for the numbers another plan is fetching now, so the sites' runs find
 * them.
 */
async function payBlockNumbers(
  deps: MonitorPlanDeps,
  tracked: ReadonlyArray<{ siteId: number; domains: readonly string[] }>,
  day: string,
): Promise<Map<number, string[]>> {
  const { store, now } = deps;
  const payerOf = payers(tracked);
  const all = [...payerOf.keys()];
  const cached = await cachedNumbers(store, all, day);
  const runId = randomBytes(9).toString('hex');
  const { claimed, owned } = await claimNumbers(
    store,
    all.filter((d) => !cached.has(d)),
    day,
    runId,
    now,
  );
  const bySite = new Map<number, string[]>();
  for (const domain of claimed) {
    const siteId = payerOf.get(domain) ?? 0;
    bySite.set(siteId, [...(bySite.get(siteId) ?? []), domain]);
  }
  const tickets = new Map<number, { budget: SiteBudget; ticket: BudgetTicket | null }>();
  const charged = new Map<number, ProviderCall[]>();
  const paid = new Map<number, string[]>();
  let kept = new Set<string>();
  try {
    const refused: string[] = [];
    await mapLimit([...bySite], SENDS_AT_ONCE, async ([siteId, domains]) => {
      const budget = deps.budgetOf(siteId);
      try {
        const work = { numbers: domains.length, trends: 0, details: 0, gaps: 0 };
        tickets.set(siteId, { budget, ticket: await budget.reserveQueued(deps.queuedPriceUsd({ backlinks: work })) });
      } catch (error) {
        if (!isBudgetExceeded(error)) throw error;
        refused.push(...domains);
      }
    });
    await giveBackNumbers(store, refused, day, runId, now);
    // A site's rows stay together, so its share is of as few requests as can be.
    const funded = [...tickets.keys()].flatMap((siteId) => bySite.get(siteId) ?? []);
    const fetched = await fetchNumbers(
      {
        store,
        backlinkData: deps.backlinkData,
        listPrices: deps.listPrices,
        signal: deps.signal,
        payerOf: (domain) => payerOf.get(domain) ?? 0,
        now,
      },
      funded,
      day,
      runId,
    );
    kept = new Set(fetched.numbers.keys());
    for (const siteId of tickets.keys()) {
      const domains = bySite.get(siteId) ?? [];
      charged.set(
        siteId,
        domains.flatMap((d) => fetched.lines.get(d) ?? []),
      );
      paid.set(
        siteId,
        domains.filter((d) => fetched.numbers.has(d)),
      );
    }
    // The ledger before anything else can fail: the requests were made.
    await mapLimit([...charged], SENDS_AT_ONCE, async ([siteId, lines]) => {
      if (lines.length > 0) await store.usage.record(siteId, 'monitor', lines);
    });
  } catch (error) {
    // A failure before the numbers were kept gives their claims back, so the plan's redelivery (or a site's run) takes them.
    await giveBackNumbers(
      store,
      claimed.filter((d) => !kept.has(d)),
      day,
      runId,
      now,
    );
    throw error;
  } finally {
    // Each paying site's reservation settles to its rows' shares (0 when its requests never ran).
    await mapLimit([...tickets], SENDS_AT_ONCE, async ([siteId, { budget, ticket }]) => {
      const lines = charged.get(siteId) ?? [];
      if (ticket) await budget.settle(ticket, roundUsd(lines.reduce((sum, l) => sum + l.cost_usd, 0)), deps.listPrices);
    });
  }
  let waiting = owned;
  for (let i = 0; i < PLAN_WAITS && waiting.length > 0; i++) {
    await pause(PLAN_WAIT_MS);
    const found = await cachedNumbers(store, waiting, day);
    waiting = waiting.filter((d) => !found.has(d));
  }
  return paid;
}

/**
 * A plan message: its block's sites, read with one BatchGetItem, and their monitored domains (a Query
 * of each site's competitors); the daily numbers of every one of those domains, paid once across sites
 * (the cache's, or bulk requests of many domains charged to the first site of the block that monitors
 * each); then one monitoring message per site (an id with no site gets none), and one rank message for
 * each site that tracks rankings, its check day the schedule's, and one Search Console import for each
 * connected site (their connections: one more BatchGetItem), of the day three days back. Delivered
 * again, it pays for nothing twice (the numbers' claims) and sends the messages again, which the runs'
 * claims (and a final day stored once) make harmless.
 */
/**
 * A connected site's Search Console days of the daily plan: the last three (a day stored final already
 * costs its message one GetItem and no provider call), or, when the connection was read again after a
 * refusal, the backfill's 56 days, its mark then taken off.
 */
export async function queueSearchDays(
  deps: Pick<ScheduleDeps, 'store' | 'enqueue'>,
  connection: SearchConsoleConnection,
  days: readonly string[],
  now: Date,
): Promise<void> {
  if (connection.backfill_due) {
    await queueBackfill(deps.enqueue, connection.site_id, now);
    await deps.store.searchConsole.backfillQueued(connection.site_id);
    return;
  }
  for (const date of days) await deps.enqueue('search-console', { site_id: connection.site_id, date, state: 'final' });
}

export async function planMonitoring(deps: MonitorPlanDeps, message: MonitorPlanMessage): Promise<number> {
  const count = Math.max(0, message.last_site_id - message.first_site_id + 1);
  const sites = await deps.store.sites.getMany(Array.from({ length: count }, (_v, i) => message.first_site_id + i));
  const day = utcDay(new Date(message.requested_at));
  const tracked = await mapLimit(sites, SENDS_AT_ONCE, async (site) => ({
    siteId: site.site_id,
    domains: await trackedDomains(deps.store, site),
  }));
  const paid = await payBlockNumbers(deps, tracked, day);
  const connected = await deps.store.searchConsole.getMany(sites.map((site) => site.site_id));
  const searchDays = searchPlanDays(searchConsoleToday(new Date(message.requested_at)));
  await mapLimit(sites, SENDS_AT_ONCE, async (site) => {
    const charged = paid.get(site.site_id) ?? [];
    await deps.enqueue('monitor', {
      site_id: site.site_id,
      requested_at: message.requested_at,
      day,
      ...(charged.length > 0 ? { paid: charged } : {}),
    });
    if (site.rank_tracking)
      await deps.enqueue('rank', { site_id: site.site_id, day, requested_at: message.requested_at });
    // A day stored final already costs its message one GetItem and no provider call.
    const connection = connected.get(site.site_id);
    if (connection) await queueSearchDays(deps, connection, searchDays, new Date(message.requested_at));
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
 * against, so a competitor added later that day makes a new snapshot once, and nothing else twice.
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

/**
 * Days back a run looks for a domain's previous snapshot (one BatchGetItem for a site's domains): a
 * domain with none that recent starts again, its trend and detail taken anew.
 */
const RECENT_DAYS = DETAIL_REFRESH.minDays;

/** When a snapshot's detail was taken, and the numbers it was taken at: what the detail rule compares with. */
const detailOf = (snapshot: BacklinkSnapshot | undefined) =>
  snapshot
    ? { at: snapshot.detail_at ?? snapshot.taken_at, basis: snapshot.detail_basis ?? snapshot.profile.summary }
    : null;

/** What a domain's snapshot of the day takes, decided before anything is paid. */
interface DomainPlan {
  claim: MonitorClaim;
  previous: BacklinkSnapshot | undefined;
  /** Its trend is taken (one range call): no snapshot has one yet. */
  trend: boolean;
  /** Its detail may be taken: none yet, or a week old (the day's numbers then decide). */
  detail: boolean;
  /** The site's domain, with competitors: its link gap is taken with its detail. */
  gap: boolean;
  /** A competitor was added since the site's gap was taken: the gap is taken again, detail or not. */
  gapStale: boolean;
}

function planDomain(
  claim: MonitorClaim,
  previous: BacklinkSnapshot | undefined,
  siteDomain: string | null,
  competitors: readonly string[],
  now: Date,
): DomainPlan {
  const taken = detailOf(previous);
  const detail = !taken || now.getTime() - Date.parse(taken.at) >= DETAIL_REFRESH.minDays * 86_400_000;
  const against = new Set(previous?.gap_against ?? []);
  const gap = claim.domain === siteDomain && competitors.length > 0;
  return {
    claim,
    previous,
    trend: !previous || previous.profile.trend.length === 0,
    detail,
    gap,
    gapStale: gap && (!previous?.gap_against || competitors.some((c) => !against.has(c))),
  };
}

/**
 * One domain's snapshot from its numbers of the day: the trend extended by them (taken first when there
 * is none), and the detail (with the site's link gap) taken again when the detail rule says so, else
 * the previous snapshot's. Every failure is an answer, so the other domains' calls still reach the ledger.
 */
async function takeSnapshot(
  deps: MonitorDeps,
  plan: DomainPlan,
  numbers: BacklinkNumbers,
  siteDomain: string | null,
  competitors: readonly string[],
  day: string,
): Promise<DomainResult> {
  const { claim, previous } = plan;
  const { domain } = claim;
  const { meter, now, backlinkData } = deps;
  const at = now.toISOString();
  try {
    const trend = plan.trend ? await backlinkData.trend(domain, meter) : (previous?.profile.trend ?? []);
    const taken = detailOf(previous);
    const due = plan.detail && detailDue(taken, numbers.summary, now);
    const detail = due || !previous ? await backlinkData.detail(domain, numbers.summary.backlinks, meter) : null;
    const gap =
      plan.gapStale || (plan.gap && detail)
        ? await backlinkData.linkGap(domain, competitors, GAP_LIMIT, meter)
        : undefined;
    const keptGap = domain === siteDomain && !gap ? previous?.gap : undefined;
    const { summary, ...counts } = numbers;
    const snapshot: BacklinkSnapshot = {
      domain,
      day,
      taken_at: at,
      data_source: backlinkData.name,
      profile: {
        domain,
        summary,
        trend: extendTrend(trend, day, numbers, LIMITS.trendMonthsMax),
        anchors: detail?.anchors ?? previous?.profile.anchors ?? [],
        top_linking_pages: detail?.top_linking_pages ?? previous?.profile.top_linking_pages ?? [],
        referring_domains: detail?.referring_domains ?? previous?.profile.referring_domains ?? [],
      },
      ...(gap ? { gap, gap_against: [...competitors] } : {}),
      ...(keptGap ? { gap: keptGap, ...(previous?.gap_against ? { gap_against: previous.gap_against } : {}) } : {}),
      numbers: counts,
      trend_at: plan.trend ? at : (previous?.trend_at ?? previous?.taken_at ?? at),
      detail_at: detail ? at : (taken?.at ?? at),
      detail_basis: detail ? pickBasis(summary) : pickBasis(taken?.basis ?? summary),
    };
    return { claim, snapshot };
  } catch (error) {
    if (error instanceof ProviderError && !error.retryable) return { claim, skipped: error.message };
    // Only a provider failure worth retrying gives its claim back; after anything else, what was paid is unknown.
    return { claim, failed: error, retry: error instanceof ProviderError };
  }
}

const pickBasis = (s: { backlinks: number; referring_domains: number; rank: number }) => ({
  backlinks: s.backlinks,
  referring_domains: s.referring_domains,
  rank: s.rank,
});

/** A failure that brings the run's message back: another run is fetching numbers this one needs. */
class NumbersPending extends Error {
  constructor(domains: readonly string[]) {
    super(`the numbers of ${domains.join(', ')} are being fetched by another run: this run comes back for them`);
    this.name = 'NumbersPending';
  }
}

/**
 * A site's monitoring run: a snapshot of each domain it still tracks, dated the schedule's day. Before
 * anything is paid, each domain's snapshot of the day is claimed for the site with one conditional
 * write, so a redelivered message, a rerun schedule or a retried invocation never pays twice. The day's
 * numbers come from the shared cache (the plan paid them, or another site's run did: a `cached` ledger
 * line at $0 for each the site did not pay); those nobody has fetched yet are claimed and fetched here
 * in one bulk batch, at the site's cost. A domain's trend is taken once (when it starts being
 * monitored) and extended by the numbers; its detail only as the detail rule says. A scheduled run
 * reserves the most that can cost; a budget with no room gives the claims back and defers them to the
 * next schedule. The calls go into the ledger before anything else can fail. A provider failure worth
 * retrying, or numbers another run is fetching now, give the domain's claim back and throw, so the
 * queue delivers the message again and only those domains run; any other provider failure skips the
 * domain until the next schedule.
 */
export async function runMonitor(deps: MonitorDeps, message: MonitorMessage): Promise<MonitorOutcome> {
  const outcome: MonitorOutcome = { monitored: [], claimedAlready: [], skipped: [], deferred: 0 };
  const { store, now, meter, backlinkData } = deps;
  let ticket = message.budget ?? null;
  try {
    const site = await store.sites.get(message.site_id);
    if (!site) return outcome;
    const siteId = site.site_id;
    const siteDomain = normalizeDomain(site.domain);
    const competitors = await competitorDomains({ siteId, store });
    // Paused competitor monitoring (PUT /v1/monitoring) leaves the site's own domain, and its link gap;
    // a competitor's first run (add_competitor names it) still populates its profile.
    const asked = message.domains;
    const tracked = [
      ...(siteDomain ? [siteDomain] : []),
      ...competitors.filter((domain) => !site.competitors_paused_at || asked?.includes(domain)),
    ];
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
    const giveBack = (given: readonly MonitorClaim[]) =>
      Promise.all(given.map((claim) => store.backlinks.giveBack(claim, now)));
    if (refused) {
      // A claim that could not be written fails the run before anything is paid: the ones taken go back.
      await giveBack(claimed);
      throw refused.reason;
    }
    outcome.claimedAlready = claims.filter((_claim, i) => !takenBy(taken[i])).map((claim) => claim.domain);
    if (claimed.length === 0) return outcome;

    const names = claimed.map((claim) => claim.domain);
    const [cached, previous] = await Promise.all([
      cachedNumbers(store, names, day),
      // The day's own too: add_competitor's run may have taken the site's domain earlier that day.
      store.backlinks.recentOf(siteId, names, day, RECENT_DAYS + 1),
    ]);
    const missing = names.filter((d) => !cached.has(d));
    const { claimed: toFetch, owned } =
      missing.length > 0 ? await claimNumbers(store, missing, day, runId, now) : { claimed: [], owned: [] };
    const pending = claimed.filter((claim) => owned.includes(claim.domain));
    const plans = claimed
      .filter((claim) => !owned.includes(claim.domain))
      .map((claim) => planDomain(claim, previous.get(claim.domain), siteDomain, competitors, now));

    try {
      const work = {
        numbers: toFetch.length,
        trends: plans.filter((p) => p.trend).length,
        details: plans.filter((p) => p.detail).length,
        gaps: plans.some((p) => p.gapStale || (p.gap && p.detail)) ? 1 : 0,
      };
      ticket ??= await deps.budget.reserveQueued(deps.queuedPriceUsd({ backlinks: work }));
    } catch (error) {
      // Nothing was paid: the claims go back, for a rerun or the next schedule.
      await Promise.all([giveBack(claimed), giveBackNumbers(store, toFetch, day, runId, now)]);
      if (!isBudgetExceeded(error)) throw error;
      outcome.deferred = claimed.length;
      return outcome;
    }

    const fetched = await fetchNumbers(
      { store, backlinkData, listPrices: meter.listPrices, signal: meter.signal, payerOf: () => siteId, now },
      toFetch,
      day,
      runId,
    );
    meter.recordEach(toFetch.flatMap((d) => fetched.lines.get(d) ?? []));
    const paid = new Set(message.paid ?? []);
    for (const domain of cached.keys())
      if (!paid.has(domain))
        for (const endpoint of backlinkData.numbersEndpoints)
          meter.recordCached({ provider: backlinkData.name, endpoint });

    const results = await mapLimit(plans, DOMAINS_AT_ONCE, (plan): Promise<DomainResult> => {
      const numbers = cached.get(plan.claim.domain) ?? fetched.numbers.get(plan.claim.domain);
      return numbers
        ? takeSnapshot(deps, plan, numbers, siteDomain, competitors, day)
        : Promise.resolve({ claim: plan.claim, failed: fetched.failure, retry: true });
    });
    const retries = [...pending, ...results.flatMap((r) => ('retry' in r && r.retry ? [r.claim] : []))];
    try {
      // The ledger first: the calls were made, whatever fails next.
      await recordCalls(store, siteId, 'monitor', meter);
      const snapshots = results.flatMap((r) => ('snapshot' in r ? [r.snapshot] : []));
      await store.backlinks.put(siteId, snapshots);
      outcome.monitored = snapshots.map((snapshot) => snapshot.domain);
      outcome.skipped = results.flatMap((r) => ('skipped' in r ? [{ domain: r.claim.domain, reason: r.skipped }] : []));
    } finally {
      await giveBack(retries);
    }
    const failed = results.find((r) => 'failed' in r);
    if (failed && 'failed' in failed) throw failed.failed;
    if (pending.length > 0) throw new NumbersPending(pending.map((claim) => claim.domain));
    return outcome;
  } finally {
    // Settled once the run is over, to what it cost (0 when another run had claimed everything).
    if (ticket) await deps.budget.settle(ticket, meter.costUsd, meter.simulated);
  }
}
