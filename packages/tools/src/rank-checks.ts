import { randomBytes } from 'node:crypto';
import {
  ApiError,
  LIMITS,
  type BudgetTicket,
  type Enqueue,
  type RankCollectMessage,
  type RankMessage,
  type SerpRow,
} from '@cm/contract';
import { isDue, keywordLocale, normalizeDomain, rankRowOf } from '@cm/core';
import { ProviderError, UnknownOutcome, type Meter, type SerpTask, type SerpTaskQueue } from '@cm/providers';
import { checkKey, mapLimit, type RankClaim, type Site, type Store, type TrackedScope } from '@cm/store';
import { reserveWhatFits, type SiteBudget } from './budget';
import { recordCalls } from './ledger';
import { competitorDomains } from './context';
import { pagesOfKeywords, rankSerpDatum, sharedRankSerps, storeAnswers, type SiteView } from './rank-serps';
import {
  distinctKeywords,
  publishedPagesOf,
  trackedKeywordsIfAny,
  type CheckedKeyword,
  type TrackedKeywords,
} from './tracking';

/*
 * A site's rank checks of a day (the rank worker; rank-collect.ts collects them). Each check is claimed,
 * per (site, keyword, device, day), before it is paid for, and its SERP, public, per (keyword, locale, device,
 * depth, day) across sites, so one site's run posts it and pays; the day's posts are held to the site's
 * budget as a whole (as many as it has room for) and posted to the provider's standard queue, many to a
 * post; their results are collected once ready and stored as each site's rank rows.
 */

/** Claims written at once. */
const CLAIMS_AT_ONCE = 16;

export interface RankCheckDeps {
  store: Store;
  serpQueue: SerpTaskQueue;
  /** Without a guard: the run's checks are reserved as queued work (or by track_rankings, in the message). */
  meter: Meter;
  now: Date;
  budget: SiteBudget;
  enqueue: Enqueue;
  /** What one check at `depth` is reserved at: its list price where it is paid, 0 when it is free (the sandbox). */
  checkPriceUsd(depth: number): number;
}

/**
 * What a site's run did: checks posted, written from a SERP the site pulled that day, written from the
 * shared cache, awaited from another site's post, claimed by another run of the site, deferred by the
 * budget, refused by the provider, and the scopes that could not be read.
 */
export interface RankOutcome {
  posted: number;
  fromStored: number;
  fromShared: number;
  awaited: number;
  claimedAlready: number;
  deferred: number;
  refused: Array<{ keyword: string; error: string }>;
  failedScopes: Array<{ type: string; id: number; error: string }>;
}

const partsOf = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_v, i) => items.slice(i * size, (i + 1) * size));

/** Why a run or a scope failed, as its tracking shows it: a provider's or the service's own words, else the kind of failure. */
const failureOf = (error: unknown): string =>
  error instanceof ProviderError || error instanceof ApiError
    ? error.message
    : `internal error (${error instanceof Error ? error.name : 'unknown'}): the queue retries the run`;

/** A check's claim, on its device. */
type Claim = RankClaim & Pick<CheckedKeyword, 'device'>;

/** A tracked scope's keywords, checked at its cadence on its device. */
type ScopeChecks = TrackedKeywords & Pick<CheckedKeyword, 'cadence' | 'device'>;

/** A due scope of the run: its keywords once read (null: its topic or page is gone), or why they could not be. */
type DueScope = { scope: TrackedScope; keywords: ScopeChecks | null } | { scope: TrackedScope; error: string };

/**
 * A site's checks of `message.day`: its tracked scopes due that day (or, from track_rankings, the scopes
 * it names), each keyword once. A scope whose keywords cannot be read fails alone: the others' checks
 * still run, and the message then fails so the queue tries that scope again. A keyword whose SERP was
 * pulled that day already (list, a refresh) is written from it; the others are claimed, reserved and
 * posted. A budget with no room for some gives their claims back (counted, deferred to the next due
 * schedule). The calls go into the ledger before anything else can fail; a post refused whole gives its
 * claims back and throws, so the queue delivers the message again; a post of unknown outcome keeps its
 * claims (it may have been paid for). Each due scope's item records how its run ended.
 */
export async function runRankChecks(deps: RankCheckDeps, message: RankMessage): Promise<RankOutcome> {
  const outcome: RankOutcome = {
    posted: 0,
    fromStored: 0,
    fromShared: 0,
    awaited: 0,
    claimedAlready: 0,
    deferred: 0,
    refused: [],
    failedScopes: [],
  };
  const { store, meter } = deps;
  /** The run's reservation: the message's (track_rankings'), or the one the run makes. */
  const held: { ticket: BudgetTicket | null } = { ticket: message.budget ?? null };
  let dueScopes: DueScope[] = [];
  /** The checks the run left for later (deferred, refused), by checkKey. */
  const left = new Set<string>();
  let runError: string | undefined;
  try {
    const site = await store.sites.get(message.site_id);
    if (!site) return outcome;
    const { depth, due } = await dueScopesOf(store, site, message);
    dueScopes = due;
    outcome.failedScopes = dueScopes.flatMap((r) =>
      'error' in r ? [{ type: r.scope.type, id: r.scope.id, error: r.error }] : [],
    );
    if (dueScopes.length === 0) return outcome;
    const found = dueScopes.flatMap((r) => ('keywords' in r && r.keywords ? [r.keywords] : []));
    await checkKeywords(deps, message, { site, depth, found, outcome, left, held });
    if (outcome.failedScopes.length > 0)
      throw new Error(
        `the keywords of ${outcome.failedScopes.length} tracked scope(s) could not be read: ${outcome.failedScopes.map((f) => `${f.type} ${f.id}: ${f.error}`).join('; ')}`,
      );
    return outcome;
  } catch (error) {
    if (outcome.failedScopes.length === 0) runError = failureOf(error);
    throw error;
  } finally {
    // The ledger first: the calls were made, whatever failed after them.
    await recordCalls(store, message.site_id, 'rank_tracking', meter);
    // Settled once the run is over, to what it cost (0 when another run had claimed everything).
    if (held.ticket) await deps.budget.settle(held.ticket, meter.costUsd, meter.simulated);
    await recordRuns(deps, message, dueScopes, left, runError);
  }
}

/**
 * The site's tracked scopes due on the message's day (or, from track_rankings, those it names), each
 * with its keywords (null: its topic or page is gone), or why they could not be read.
 */
async function dueScopesOf(
  store: Store,
  site: Site,
  message: RankMessage,
): Promise<{ depth: number; due: DueScope[] }> {
  const siteId = site.site_id;
  const ctx = { siteId, store };
  const { depth, scopes } = await store.ranks.tracking(siteId);
  const named = message.scopes;
  const due = scopes.filter((s) =>
    named ? named.some((n) => n.type === s.type && n.id === s.id) : isDue(s.cadence, s.since, message.day),
  );
  if (due.length === 0) return { depth, due: [] };
  const locale = keywordLocale(null, site.locale);
  const read = await mapLimit(due, 4, async (scope): Promise<DueScope> => {
    try {
      const keywords = await trackedKeywordsIfAny(ctx, scope, locale);
      return { scope, keywords: keywords ? { cadence: scope.cadence, device: scope.device, ...keywords } : null };
    } catch (error) {
      return { scope, error: failureOf(error) };
    }
  });
  return { depth, due: read };
}

/** Each due scope's run, on its item: failed (with why), partial (some of its checks left for later), or ok. */
async function recordRuns(
  deps: RankCheckDeps,
  message: RankMessage,
  dueScopes: readonly DueScope[],
  left: ReadonlySet<string>,
  runError: string | undefined,
): Promise<void> {
  await mapLimit(dueScopes, 4, (due) => {
    const keywords = 'keywords' in due ? (due.keywords?.tracked ?? []) : [];
    const error = 'error' in due ? due.error : runError;
    const someLeft = keywords.some((k) => left.has(checkKey(k.locale, k.keyword, due.scope.device)));
    return deps.store.ranks.recordRun(
      message.site_id,
      due.scope,
      error !== undefined
        ? { day: message.day, status: 'failed', error }
        : { day: message.day, status: someLeft ? 'partial' : 'ok' },
    );
  });
}

/** What checkKeywords reads of the run and writes into it. */
interface RunState {
  site: Site;
  depth: number;
  found: readonly ScopeChecks[];
  outcome: RankOutcome;
  left: Set<string>;
  held: { ticket: BudgetTicket | null };
}

/**
 * Claims each check, a few at a time, as `take` answers: those won and those another run holds. A
 * claim that could not be written fails the run before anything is paid: `undo` gives back the ones
 * taken, and the write's error is thrown.
 */
async function claimEach<C>(
  checks: readonly C[],
  take: (check: C) => Promise<boolean>,
  undo: (won: readonly C[]) => Promise<unknown>,
): Promise<{ won: C[]; lost: C[] }> {
  const taken = await mapLimit(checks, CLAIMS_AT_ONCE, (check) =>
    take(check).then(
      (won) => ({ won }),
      (error: unknown) => ({ won: false, error }),
    ),
  );
  const won = checks.filter((_c, i) => taken[i]?.won === true);
  const refused = taken.find((t) => 'error' in t);
  if (refused && 'error' in refused) {
    await undo(won);
    throw refused.error;
  }
  return { won, lost: checks.filter((_c, i) => taken[i]?.won === false) };
}

/**
 * The run's keywords, each once: claimed for the site, written from a SERP of the day (the site's own
 * pull, or the shared cache's), else its shared SERP claimed for the day: won, reserved and posted (the
 * site pays); claimed by another site's run, awaited (read from the cache once that run collected it).
 */
async function checkKeywords(deps: RankCheckDeps, message: RankMessage, run: RunState): Promise<void> {
  const { store, now } = deps;
  const { site, depth, found, outcome, left } = run;
  const siteId = site.site_id;
  const ctx = { siteId, store };
  const keywords = distinctKeywords(found);
  if (keywords.length === 0) return;

  const siteDomain = normalizeDomain(site.domain);
  // A page in two scopes (its own, its topic's) is one page.
  const pagesOf = [...new Map(found.flatMap((r) => r.scope.pages).map((page) => [page.id, page])).values()];
  const [competitors, pages, stored] = await Promise.all([
    competitorDomains(ctx),
    publishedPagesOf(ctx, pagesOf, siteDomain),
    store.serps.getMany(siteId, keywords),
  ]);
  const pulledThatDay = new Map(
    stored
      .filter((row) => row.fetched_at.slice(0, 10) === message.day)
      .map((row) => [checkKey(row.locale, row.keyword), row]),
  );

  const runId = randomBytes(9).toString('hex');
  const claims: Claim[] = keywords.map((k) => ({
    siteId,
    locale: k.locale,
    keyword: k.keyword,
    device: k.device,
    day: message.day,
    runId,
  }));
  const { won: claimed } = await claimEach(
    claims,
    (claim) => store.ranks.claim(claim, now),
    (won) => mapLimit(won, CLAIMS_AT_ONCE, (claim) => store.ranks.giveBack(claim, now)),
  );
  outcome.claimedAlready = claims.length - claimed.length;

  // A SERP pulled live is a desktop one: it answers desktop checks only.
  const pulledFor = (claim: Claim) =>
    claim.device === 'desktop' ? pulledThatDay.get(checkKey(claim.locale, claim.keyword)) : undefined;
  const fromStored = claimed.flatMap((claim) => {
    const serp = pulledFor(claim);
    return serp ? [{ claim, serp }] : [];
  });
  if (fromStored.length > 0) {
    await store.ranks.put(
      siteId,
      fromStored.map(({ serp }) => rankRowOfSerp(serp, message.day, siteDomain)),
    );
    outcome.fromStored = fromStored.length;
  }
  const unchecked = claimed.filter((claim) => !pulledFor(claim));
  if (unchecked.length === 0) return;

  const view: SiteView = {
    site_id: siteId,
    day: message.day,
    depth,
    site_domain: siteDomain,
    competitors,
    pages: [],
  };
  const viewOf = (checks: readonly Claim[]): SiteView => ({
    ...view,
    pages: pagesOfKeywords(
      pages,
      checks.map((c) => c.keyword),
    ),
  });
  const cached = await sharedRankSerps(deps, unchecked, depth, message.day);
  const answered = cached.flatMap(({ check, serp }) => (serp ? [{ check, serp }] : []));
  if (answered.length > 0) {
    await storeAnswers(deps, viewOf(answered.map((a) => a.check)), answered, true);
    outcome.fromShared = answered.length;
  }
  const missed = cached.flatMap(({ check, serp }) => (serp ? [] : [check]));
  const datum = (claim: Claim) => rankSerpDatum(claim, depth, claim.day);
  const checking: Checking = {
    runId,
    depth,
    view,
    viewOf,
    datum,
    release: (checks, shared) =>
      mapLimit(checks, CLAIMS_AT_ONCE, (claim) =>
        Promise.all([
          store.ranks.giveBack(claim, now),
          shared ? store.shared.giveBack(datum(claim), runId, now) : undefined,
        ]),
      ),
  };
  const { won, affordable } = await claimShared(deps, message, run, checking, missed);
  if (won.length === 0) return;

  const deferred = won.slice(affordable);
  // Nothing was paid for these: their claims go back, for a rerun, another site, or the next due schedule.
  await checking.release(deferred, true);
  outcome.deferred = deferred.length;
  for (const claim of deferred) left.add(checkKey(claim.locale, claim.keyword, claim.device));
  await postChecks(deps, run, checking, won.slice(0, affordable));
}

/** What the phases after a run's own claims share: its id, depth and view, and how it gives claims back. */
interface Checking {
  runId: string;
  depth: number;
  view: SiteView;
  /** The view with the pages of these checks' keywords. */
  viewOf: (checks: readonly Claim[]) => SiteView;
  /** A check's shared SERP, across sites. */
  datum: (claim: Claim) => ReturnType<typeof rankSerpDatum>;
  /** Claims the run gives back: the site's, and (unless it may have posted them) the shared ones. */
  release: (checks: readonly Claim[], shared: boolean) => Promise<unknown>;
}

/**
 * The checks whose SERP no cache had: each SERP claimed for the day across sites. Those another site's
 * run claimed are awaited (queued for collection once it has posted them); those won are reserved as
 * far as the budget has room (`affordable` of them, in order).
 */
async function claimShared(
  deps: RankCheckDeps,
  message: RankMessage,
  run: RunState,
  checking: Checking,
  missed: readonly Claim[],
): Promise<{ won: Claim[]; affordable: number }> {
  const { store, now, serpQueue } = deps;
  const { outcome, held } = run;
  const { runId, depth, viewOf, datum, release } = checking;
  const theirs = await claimEach(
    missed,
    (claim) => store.shared.claim(datum(claim), runId, now),
    async (won) => {
      await mapLimit(won, CLAIMS_AT_ONCE, (claim) => store.shared.giveBack(datum(claim), runId, now));
      await release(missed, false);
    },
  );
  // Until something is posted, a failure gives back what the run claimed and has not handed on: the
  // SERPs it won (so another site's run, or this one delivered again, posts them) and the checks whose
  // wait was not queued. Held, they would be no one's that day.
  const unsent = new Set(theirs.lost);
  let affordable = theirs.won.length;
  try {
    // Another site's run posts these: they are read from the shared cache once it collected them.
    for (const awaited of partsOf(theirs.lost, serpQueue.tasksPerPost)) {
      await deps.enqueue(
        'rank-collect',
        {
          ...viewOf(awaited),
          tasks: [],
          awaiting: {
            run_id: runId,
            checks: awaited.map(({ locale, keyword, device }) => ({ locale, keyword, device })),
            ...(message.scopes ? { scopes: message.scopes } : {}),
          },
        },
        serpQueue.readySeconds,
      );
      for (const claim of awaited) unsent.delete(claim);
    }
    const unitUsd = deps.checkPriceUsd(depth);
    if (theirs.won.length > 0 && unitUsd > 0 && held.ticket)
      affordable = Math.min(affordable, Math.floor(held.ticket.estimate_usd / unitUsd + 1e-9));
    else if (theirs.won.length > 0 && unitUsd > 0)
      ({ ticket: held.ticket, count: affordable } = await reserveWhatFits(deps.budget, unitUsd, theirs.won.length));
  } catch (error) {
    await Promise.all([release(theirs.won, true), release([...unsent], false)]);
    throw error;
  }
  outcome.awaited = theirs.lost.length;
  return { won: theirs.won, affordable };
}

/**
 * Posts the checks, as many a post as the queue takes, each post's tasks then queued for collection: a post
 * that fails gives back what was not posted; a check refused for good is answered with why, for the
 * site and the sites awaiting it.
 */
async function postChecks(
  deps: RankCheckDeps,
  run: RunState,
  checking: Checking,
  posting: readonly Claim[],
): Promise<void> {
  const { store, now, meter, serpQueue } = deps;
  const { outcome, left } = run;
  const { runId, depth, view, viewOf, datum, release } = checking;
  // The task is public: its tag is the SERP's identity, nothing of the site's.
  const task = (claim: Claim): SerpTask => ({
    tag: `${claim.day}|${datum(claim).key}`,
    keyword: claim.keyword,
    locale: claim.locale,
    device: claim.device,
    depth,
  });
  const chunks = partsOf(posting, serpQueue.tasksPerPost);
  for (const [i, chunk] of chunks.entries()) {
    let answers;
    try {
      answers = await serpQueue.post(chunk.map(task), meter);
    } catch (error) {
      // The chunks not posted go back; this one too, unless it may have been posted (and paid for): then
      // the site keeps its claims (it never pays twice) and gives the shared ones back, so the sites
      // awaiting them may post them.
      const unknown = error instanceof UnknownOutcome;
      await release([...(unknown ? [] : chunk), ...chunks.slice(i + 1).flat()], true);
      if (unknown) await mapLimit(chunk, CLAIMS_AT_ONCE, (claim) => store.shared.giveBack(datum(claim), runId, now));
      throw error;
    }
    const byTag = new Map(chunk.map((claim) => [task(claim).tag, claim]));
    const posted: RankCollectMessage['tasks'] = [];
    const refusedForGood: Array<{ check: Claim; error: string }> = [];
    for (const answer of answers) {
      const claim = byTag.get(answer.tag);
      if (!claim) continue;
      if ('id' in answer)
        posted.push({ id: answer.id, locale: claim.locale, keyword: claim.keyword, device: claim.device });
      else {
        outcome.refused.push({ keyword: claim.keyword, error: answer.error });
        left.add(checkKey(claim.locale, claim.keyword, claim.device));
        // Refused for now, not billed: a rerun may post it; refused for good, the day has no row, and says why.
        if (answer.retryable) await release([claim], true);
        else refusedForGood.push({ check: claim, error: answer.error });
      }
    }
    if (refusedForGood.length > 0) {
      // The same task would be refused for every site: the sites awaiting it read why.
      const answersOfDay = refusedForGood.map(({ check, error }) => ({
        check,
        serp: { value: { error }, fetched_at: now.toISOString(), data_source: serpQueue.name },
      }));
      await store.shared.putMany(answersOfDay.map(({ check, serp }) => ({ datum: datum(check), shared: serp })));
      await storeAnswers(deps, view, answersOfDay, false);
    }
    outcome.posted += posted.length;
    if (posted.length > 0)
      await deps.enqueue('rank-collect', { ...viewOf(chunk), tasks: posted }, serpQueue.readySeconds);
  }
}

/** A check's row from a SERP pulled that day already (list, a refresh; its AI Overview when a check stored it): of the depth it was pulled at. */
function rankRowOfSerp(serp: SerpRow, day: string, siteDomain: string | null) {
  const row = rankRowOf({
    keyword: serp.keyword,
    locale: serp.locale,
    device: 'desktop',
    day,
    checkedAt: serp.fetched_at,
    dataSource: serp.data_source,
    depth: Math.max(LIMITS.serpDepth, ...serp.items.map((item) => item.position)),
    items: serp.items,
    siteDomain,
  });
  return serp.ai_overview ? { ...row, ai_overview: serp.ai_overview } : row;
}
