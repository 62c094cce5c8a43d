import { randomBytes } from 'node:crypto';
import type { Enqueue, RankCollectMessage, SharedRankSerp } from '@cm/contract';
import type { Meter, SerpTaskQueue } from '@cm/providers';
import { checkKey, mapLimit, type Shared, type Store } from '@cm/store';
import { rankSerpDatum, sharedRankSerps, storeAnswers, type RankCheck } from './rank-serps';
import { recordCalls } from './ledger';

/*
 * The collection of a site's rank checks of a day (the rank-collect worker): the SERP tasks its run
 * posted, read from the provider once ready and kept in the shared cache for every site, and the
 * checks another site's run posted, read from the shared cache; each becomes the site's rank row.
 */

/** Tasks collected at once by one collect message: with the collect queue's concurrency, what bounds the reads a minute. */
const COLLECTS_AT_ONCE = 4;
/** Shared claims tried at once (an awaited SERP not in the cache yet: is its poster still on it?). */
const PROBES_AT_ONCE = 16;

export interface RankCollectDeps {
  store: Store;
  serpQueue: SerpTaskQueue;
  meter: Meter;
  now: Date;
  enqueue: Enqueue;
}

/**
 * What a collection did: rows stored, checks not ready yet (the worker fails the message for them, so
 * the queue delivers it again after its visibility timeout), checks that failed for good (no row that
 * day: stored failed, with why), and awaited checks whose poster gave its claim back (run again).
 */
export interface CollectOutcome {
  stored: number;
  pending: Array<{ keyword: string; reason: string }>;
  failed: Array<{ keyword: string; error: string }>;
  rerun: number;
}

/**
 * Collects a site's checks of a day: those whose day has no row yet (a delivery again skips what an
 * earlier one stored, with one batch read). Its posted tasks are read a few at a time; each ready or
 * failed one is kept in the shared cache first (then every site checking it that day reads it), then
 * stored for the site. Its awaited checks are read from the shared cache (one batch read), each a $0
 * ledger line; one not there yet is pending while another run holds its claim, and when that run gave
 * the claim back (it could not pay, or its post was refused), the site's claims of those checks go
 * back and its run is queued again, to claim and post them itself.
 */
export async function collectRankChecks(deps: RankCollectDeps, message: RankCollectMessage): Promise<CollectOutcome> {
  const { store, serpQueue, meter, now } = deps;
  const { site_id: siteId, day, depth } = message;
  const awaiting = message.awaiting?.checks ?? [];
  const states = await store.ranks.checksOn(siteId, [...message.tasks, ...awaiting], day);
  const open = <C extends RankCheck>(checks: readonly C[]) =>
    checks.filter((c) => {
      const state = states.get(checkKey(c.locale, c.keyword, c.device))?.state;
      return state !== 'checked' && state !== 'failed';
    });

  const collected = await mapLimit(open(message.tasks), COLLECTS_AT_ONCE, async (task) => ({
    task,
    answer: await serpQueue.collect(task.id, depth, meter),
  }));
  const fetchedAt = now.toISOString();
  const posted = collected.flatMap(({ task, answer }) =>
    answer.status === 'pending'
      ? []
      : [
          {
            check: task,
            serp: {
              value:
                answer.status === 'ready'
                  ? { items: answer.items, ai_overview: answer.aiOverview }
                  : { error: answer.error },
              fetched_at: fetchedAt,
              data_source: serpQueue.name,
            } satisfies Shared<SharedRankSerp>,
          },
        ],
  );
  await store.shared.putMany(
    posted.map(({ check, serp }) => ({ datum: rankSerpDatum(check, depth, day), shared: serp })),
  );

  const cached = await sharedRankSerps(deps, open(awaiting), depth, day);
  const fromCache = cached.flatMap(({ check, serp }) => (serp ? [{ check, serp }] : []));
  const missing = cached.flatMap(({ check, serp }) => (serp ? [] : [check]));
  // Not in the cache yet: pending while its poster holds the claim; a claim taken here was given back.
  const probeId = randomBytes(9).toString('hex');
  const probed = await mapLimit(missing, PROBES_AT_ONCE, async (check) => {
    const datum = rankSerpDatum(check, depth, day);
    const released = await store.shared.claim(datum, probeId, now);
    if (released) await store.shared.giveBack(datum, probeId, now);
    return { check, released };
  });
  const orphaned = probed.flatMap(({ check, released }) => (released ? [check] : []));

  const own = await storeAnswers(deps, message, posted, false);
  const shared = await storeAnswers(deps, message, fromCache, true);
  // Lines of answers the cache gave ($0): written after their rows, so a delivery again never repeats them.
  await recordCalls(store, siteId, 'rank_tracking', meter);
  if (message.awaiting && orphaned.length > 0) {
    const { run_id: runId, scopes } = message.awaiting;
    await mapLimit(orphaned, PROBES_AT_ONCE, (check) =>
      store.ranks.giveBack(
        { siteId, locale: check.locale, keyword: check.keyword, device: check.device, day, runId },
        now,
      ),
    );
    await deps.enqueue('rank', { site_id: siteId, day, requested_at: fetchedAt, ...(scopes ? { scopes } : {}) });
  }
  return {
    stored: own.stored + shared.stored,
    pending: [
      ...collected.flatMap(({ task, answer }) =>
        answer.status === 'pending' ? [{ keyword: task.keyword, reason: answer.reason }] : [],
      ),
      ...probed.flatMap(({ check, released }) =>
        released ? [] : [{ keyword: check.keyword, reason: "another site's check of it is not collected yet" }],
      ),
    ],
    failed: [...own.failed, ...shared.failed],
    rerun: orphaned.length,
  };
}
