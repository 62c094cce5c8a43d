import { BacklinkNumbers, roundUsd } from '@cm/contract';
import {
  BULK_TARGETS,
  Meter,
  type BacklinkDataProvider,
  type PaidCall,
  type PendingLedger,
  type ProviderCall,
} from '@cm/providers';
import { mapLimit, sharedId, type SharedDatum, type Store } from '@cm/store';

/*
 * A domain's daily backlink numbers, public data paid once a day for every site that monitors the
 * domain: fetched in bulk requests of many domains (across sites), kept in the shared cache, and each
 * request's bill split evenly over its rows.
 */

/** Claims (and claims given back) of one run in flight at once. */
const CLAIMS_AT_ONCE = 16;
/** Bulk batches of one run in flight at once (each is three requests). */
const BATCHES_AT_ONCE = 4;

/** A domain's numbers of a day in the shared cache. */
export const numbersDatum = (domain: string, day: string): SharedDatum => ({
  kind: 'backlink-numbers',
  key: domain,
  day,
});

/** The shared cache's numbers of these domains on `day`, by domain: batched reads of 100 keys. */
export async function cachedNumbers(
  store: Store,
  domains: readonly string[],
  day: string,
): Promise<Map<string, BacklinkNumbers>> {
  const found = await store.shared.getMany(
    domains.map((domain) => numbersDatum(domain, day)),
    BacklinkNumbers,
  );
  const numbers = new Map<string, BacklinkNumbers>();
  for (const domain of domains) {
    const shared = found.get(sharedId(numbersDatum(domain, day)));
    if (shared) numbers.set(domain, shared.value);
  }
  return numbers;
}

/** Claims each domain's numbers of `day` for `runId`: the domains claimed, and those another run owns. */
export async function claimNumbers(
  store: Store,
  domains: readonly string[],
  day: string,
  runId: string,
  now: Date,
): Promise<{ claimed: string[]; owned: string[] }> {
  // A block's thousand claims, a few at a time: all at once would queue more requests than the client's sockets serve in time.
  const taken = await mapLimit(domains, CLAIMS_AT_ONCE, (d) =>
    store.shared.claim(numbersDatum(d, day), runId, now).then(
      (value): PromiseSettledResult<boolean> => ({ status: 'fulfilled', value }),
      (reason: unknown): PromiseSettledResult<boolean> => ({ status: 'rejected', reason }),
    ),
  );
  const claimed = domains.filter((_d, i) => taken[i]?.status === 'fulfilled' && taken[i].value);
  const refused = taken.find((result) => result.status === 'rejected');
  if (refused) {
    // A claim that could not be written fails the run before anything is paid: the ones taken go back.
    await giveBackNumbers(store, claimed, day, runId, now);
    throw refused.reason;
  }
  return { claimed, owned: domains.filter((d) => !claimed.includes(d)) };
}

export const giveBackNumbers = (store: Store, domains: readonly string[], day: string, runId: string, now: Date) =>
  mapLimit(domains, CLAIMS_AT_ONCE, (d) => store.shared.giveBack(numbersDatum(d, day), runId, now));

/** What fetching a set of claimed domains' numbers gave. */
export interface FetchedNumbers {
  numbers: Map<string, BacklinkNumbers>;
  /**
   * Each domain's ledger lines: its even share of each request of its batch, billed failures included
   * (a request cut after it was sent: pending at its estimate); a paying site's first settles the
   * request's pending line in its ledger.
   */
  lines: Map<string, ProviderCall[]>;
  /** Domains whose batch failed, their claims given back, and the first failure. */
  failed: string[];
  failure?: unknown;
}

export interface NumbersDeps {
  store: Store;
  backlinkData: BacklinkDataProvider;
  /** Whether the sandbox charges list prices: each batch's own meter does as the run's does. */
  listPrices: boolean;
  /** The run's deadline: past it no request starts, and those in flight are cut. */
  signal?: AbortSignal;
  /** The site whose ledger a domain's share of each request goes to. */
  payerOf(domain: string): number;
  now: Date;
}

/**
 * A batch's pending lines: each request's, before it is made, split as its bill is (each paying site's
 * rows' share of the estimate, in its own ledger), all under one id, which the shares' first lines settle.
 */
function batchLedger(store: Store, rows: ReadonlyMap<number, number>, total: number): PendingLedger {
  const [first, ...others] = rows.keys();
  const share = (siteId: number, call: PaidCall & { cost_usd: number }) => ({
    ...call,
    cost_usd: roundUsd((call.cost_usd * (rows.get(siteId) ?? 0)) / total),
  });
  return {
    async open(call) {
      const line = await store.usage.open(first ?? 0, 'monitor', share(first ?? 0, call));
      await Promise.all(others.map((siteId) => store.usage.open(siteId, 'monitor', share(siteId, call), line)));
      return line;
    },
    async release(line) {
      await Promise.all([...rows.keys()].map((siteId) => store.usage.release(siteId, line)));
    },
  };
}

/**
 * Fetches the daily numbers of domains this run claimed, BULK_TARGETS to a batch of bulk requests, and
 * keeps them in the shared cache. Each request's bill is split evenly over its rows (each share rounded
 * to a millionth of a dollar), and each request is in the paying sites' ledgers, pending at their shares
 * of its estimate, before it is made. A batch that fails gives its claims back (the next run that needs
 * them tries again) and is reported, not thrown, so the bills of the others still reach the ledger.
 */
export async function fetchNumbers(
  deps: NumbersDeps,
  domains: readonly string[],
  day: string,
  runId: string,
): Promise<FetchedNumbers> {
  const batches: string[][] = [];
  for (let i = 0; i < domains.length; i += BULK_TARGETS) batches.push(domains.slice(i, i + BULK_TARGETS));
  const out: FetchedNumbers = { numbers: new Map(), lines: new Map(), failed: [] };
  const fetchedAt = deps.now.toISOString();
  await mapLimit(batches, BATCHES_AT_ONCE, async (batch) => {
    const rows = new Map<number, number>();
    for (const domain of batch) rows.set(deps.payerOf(domain), (rows.get(deps.payerOf(domain)) ?? 0) + 1);
    const ledger = batchLedger(deps.store, rows, batch.length);
    const meter = new Meter({ listPrices: deps.listPrices, signal: deps.signal, ledger });
    try {
      const numbers = await deps.backlinkData.numbers(batch, meter);
      await deps.store.shared.putMany(
        batch.flatMap((domain) => {
          const value = numbers.get(domain);
          return value
            ? [
                {
                  datum: numbersDatum(domain, day),
                  shared: { value, fetched_at: fetchedAt, data_source: deps.backlinkData.name },
                },
              ]
            : [];
        }),
      );
      for (const [domain, value] of numbers) out.numbers.set(domain, value);
    } catch (error) {
      // Given back whatever failed: a run that needs these numbers next tries (and pays) again.
      await giveBackNumbers(deps.store, batch, day, runId, deps.now);
      out.failed.push(...batch);
      out.failure ??= error;
    }
    // Requests that never reached the provider: their pending lines go.
    await Promise.all(meter.released.map((line) => ledger.release(line)));
    for (const { line, ...call } of meter.calls) {
      const share = roundUsd(call.cost_usd / batch.length);
      // Each paying site's first row settles the request's pending line in its ledger.
      const settles = new Set<number>();
      for (const domain of batch) {
        const payer = deps.payerOf(domain);
        const settling = line !== undefined && !settles.has(payer);
        settles.add(payer);
        out.lines.set(domain, [
          ...(out.lines.get(domain) ?? []),
          { ...call, cost_usd: share, ...(settling ? { line } : {}) },
        ]);
      }
    }
  });
  return out;
}
