import { ApiError, fieldError, LIMITS, type AddCompetitorInput, type CompetitorRow } from '@cm/contract';
import { displayDomain, normalizeDomain } from '@cm/core';
import { RowConflict } from '@cm/store';
import { DATABASE, siteOf, type ToolContext } from './context';
import { GAP_LIMIT, queueMonitoring } from './monitoring';
import { callsOf, freeOf, withPlan, type PlanDeps, type ToolPlan } from './plan';
import { linkGapPrice, monitorWorkPrice } from '@cm/providers';
import { competitorsPaused, monitoringCost } from './monitoring-settings';

/*
 * Competitors: at most LIMITS.activeCompetitors active per site, each taking one place of the site's
 * competitor cap. A row db_insert stores is `incomplete: true` (its monitoring never started) until
 * add_competitor completes it; it may also be stored inactive, outside the cap and not monitored.
 */

/** A confirmed competitor's place never expires; it is freed when its row is deleted. */
const CONFIRMED = Number.MAX_SAFE_INTEGER;
/** A place taken for a row not stored yet; if the adding call dies, it can be revoked after this. */
const PENDING_MS = 60_000;
/** How long a call waits for a concurrent add of the same domain to store its row. */
const SAME_DOMAIN_WAIT_MS = 3_000;

const TABLE = 'cm_competitors';
/** A competitor row's fields as a call sets them. */
type Fields = Record<string, unknown> & { domain: string };

const limitReached = () =>
  new ApiError(
    'competitor_limit_reached',
    `A site tracks at most ${LIMITS.activeCompetitors} active competitors; delete one with db_delete first`,
    {
      max_active: LIMITS.activeCompetitors,
    },
  );

/** The domain as tracked, or a 400 naming `path`. */
export function competitorDomain(input: string, path: string): string {
  const domain = normalizeDomain(input);
  if (!domain)
    throw fieldError(
      'body',
      path,
      'must be a domain name such as example.com (a URL is fine: its scheme and path are stripped)',
    );
  return domain;
}

async function rowOfDomain(ctx: ToolContext, domain: string): Promise<CompetitorRow | null> {
  const id = (await ctx.store.rows.idsByUnique(ctx.siteId, TABLE, [domain])).get(domain);
  return id === undefined ? null : ctx.store.rows.get(ctx.siteId, TABLE, id);
}

const isActive = (row: CompetitorRow | null): row is CompetitorRow => row?.active === true;

/** The domain's row once `accept` is true of it, looked for while a concurrent call stores it; null if it never does. */
async function awaitRow(
  ctx: ToolContext,
  domain: string,
  accept: (row: CompetitorRow) => boolean,
): Promise<CompetitorRow | null> {
  const deadline = Date.now() + SAME_DOMAIN_WAIT_MS;
  for (;;) {
    const row = await rowOfDomain(ctx, domain);
    if (row && accept(row)) return row;
    if (Date.now() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const changedMeanwhile = (domain: string) =>
  new ApiError('already_exists', `Another call is changing the ${TABLE} row of ${domain}; try again`, { table: TABLE });

/*
 * The cap is exact with single-item conditional writes only. Only active rows take places, one per
 * domain, on the site's cap item (LIMITS.activeCompetitors places): the domain first takes a place,
 * pending, then its row is stored active and the place confirmed. A place is revoked only when its
 * domain has no active row: a pending add that died, or a delete that stopped between removing the
 * row and freeing the place.
 */

/**
 * Takes a pending place for `domain`: null when taken. When the domain has a place already, a
 * concurrent add of it is storing its row, and that row, once active, is the answer.
 */
async function takePlace(ctx: ToolContext, domain: string): Promise<CompetitorRow | null> {
  const places = ctx.store.competitorPlaces(ctx.siteId);
  const now = ctx.now.getTime();
  const taken = await places.take(
    domain,
    now + PENDING_MS,
    now,
    async (owner, expiry) => (expiry <= now || expiry === CONFIRMED) && !isActive(await rowOfDomain(ctx, owner)),
  );
  if (taken.taken) return null;
  if ((await places.state()).leases[domain] === undefined) throw limitReached();
  const row = await awaitRow(ctx, domain, isActive);
  if (!row) throw limitReached();
  return row;
}

/** Confirms the place of a domain whose row is active; false when the pending place was revoked (the call stalled past PENDING_MS) and the cap is full again. */
const confirmPlace = (ctx: ToolContext, domain: string) =>
  ctx.store.competitorPlaces(ctx.siteId).renew(domain, CONFIRMED);

/** Inserts an active row under the domain's pending place and confirms it. On a RowConflict the place stays pending, for the caller to settle. */
async function insertActive(ctx: ToolContext, fields: Fields): Promise<CompetitorRow> {
  let row: CompetitorRow;
  try {
    row = await ctx.store.rows.insert(
      ctx.siteId,
      TABLE,
      { ...fields, active: true, added_at: ctx.now.toISOString() },
      ctx.now.toISOString(),
    );
  } catch (error) {
    if (!(error instanceof RowConflict)) await ctx.store.competitorPlaces(ctx.siteId).free(fields.domain);
    throw error;
  }
  if (!(await confirmPlace(ctx, fields.domain))) {
    await ctx.store.rows.delete(ctx.siteId, TABLE, row.id);
    throw limitReached();
  }
  return row;
}

/** Makes db_insert's inactive row active (and complete) under the domain's pending place, and confirms it; undone when the place was lost. */
async function activate(ctx: ToolContext, row: CompetitorRow): Promise<CompetitorRow> {
  const { domain } = row;
  const active = await ctx.store.rows.update(
    ctx.siteId,
    TABLE,
    row.id,
    { active: true, incomplete: false },
    ctx.now.toISOString(),
  );
  if (!active) {
    await ctx.store.competitorPlaces(ctx.siteId).free(domain);
    throw changedMeanwhile(domain);
  }
  if (!(await confirmPlace(ctx, domain))) {
    await ctx.store.rows.update(
      ctx.siteId,
      TABLE,
      row.id,
      { active: false, incomplete: row.incomplete === true },
      ctx.now.toISOString(),
    );
    throw limitReached();
  }
  return active;
}

/**
 * After an insert met a row of the same domain stored meanwhile: an active one (stored without a
 * place, before the cap was kept this way) now owns the pending place; an inactive one leaves it to
 * `inactive`, which activates it or frees the place.
 */
async function settleConflict(
  ctx: ToolContext,
  domain: string,
  inactive: (row: CompetitorRow) => Promise<CompetitorRow>,
): Promise<CompetitorRow> {
  const row = await awaitRow(ctx, domain, () => true);
  if (!row) {
    await ctx.store.competitorPlaces(ctx.siteId).free(domain);
    throw changedMeanwhile(domain);
  }
  if (!isActive(row)) return inactive(row);
  await confirmPlace(ctx, domain);
  return row;
}

/**
 * db_insert of a cm_competitors row: incomplete, its monitoring not started (add_competitor completes
 * it). An active row takes a place under the cap like add_competitor's; an inactive one none. A
 * domain that has a row already is a RowConflict.
 */
export async function insertCompetitor(ctx: ToolContext, fields: Fields & { active: boolean }): Promise<CompetitorRow> {
  const now = ctx.now.toISOString();
  if (!fields.active)
    return ctx.store.rows.insert(ctx.siteId, TABLE, { ...fields, added_at: now, incomplete: true }, now);
  const existing = (await rowOfDomain(ctx, fields.domain)) ?? (await takePlace(ctx, fields.domain));
  if (existing) throw new RowConflict(TABLE, existing.id);
  try {
    return await insertActive(ctx, { ...fields, incomplete: true });
  } catch (error) {
    if (!(error instanceof RowConflict)) throw error;
    await settleConflict(ctx, fields.domain, async (row) => {
      await ctx.store.competitorPlaces(ctx.siteId).free(fields.domain);
      return row;
    });
    throw error;
  }
}

/**
 * Whether an active row's monitoring never started: it says so (`incomplete: true`), or it was stored
 * before rows carried the flag (by the old db_insert) and has no backlink snapshot yet.
 */
async function neverMonitored(ctx: ToolContext, row: CompetitorRow): Promise<boolean> {
  if (row.incomplete !== undefined) return row.incomplete === true;
  return (await ctx.store.backlinks.latest(ctx.siteId, row.domain)) === null;
}

/**
 * add_competitor: the domain's row, active under the cap. `created` when new; `completed` when it was
 * a row db_insert stored (incomplete, or inactive) whose monitoring starts now. display_name and color
 * follow the call.
 */
export async function trackCompetitor(
  ctx: ToolContext,
  fields: Fields,
): Promise<{ row: CompetitorRow; created: boolean; completed: boolean }> {
  const { domain, ...labels } = fields;
  const found = await rowOfDomain(ctx, domain);
  let row: CompetitorRow;
  let activated = false;
  if (isActive(found)) row = found;
  else {
    const joined = await takePlace(ctx, domain);
    if (joined) row = joined;
    else if (found) {
      row = await activate(ctx, found);
      activated = true;
    } else {
      try {
        return { row: await insertActive(ctx, { ...fields, incomplete: false }), created: true, completed: false };
      } catch (error) {
        if (!(error instanceof RowConflict)) throw error;
        row = await settleConflict(ctx, domain, async (inactive) => {
          activated = true;
          return activate(ctx, inactive);
        });
      }
    }
  }
  const completing = await neverMonitored(ctx, row);
  const changes = {
    ...Object.fromEntries(Object.entries(labels).filter(([field, value]) => row[field] !== value)),
    ...(completing ? { incomplete: false } : {}),
  };
  if (Object.keys(changes).length > 0)
    row = (await ctx.store.rows.update(ctx.siteId, TABLE, row.id, changes, ctx.now.toISOString())) ?? row;
  return { row, created: false, completed: activated || completing };
}

/** Frees the place of a deleted competitor row, which stops its monitoring too (monitoring reads the rows). */
export async function untrackCompetitor(ctx: ToolContext, domain: string): Promise<void> {
  await ctx.store.competitorPlaces(ctx.siteId).free(domain);
}

const competitorView = (row: CompetitorRow) => ({
  id: row.id,
  domain: row.domain,
  domain_unicode: displayDomain(row.domain),
  display_name: row.display_name ?? null,
  color: row.color ?? null,
  active: row.active,
  added_at: row.added_at,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** The domain add_competitor tracks, refused before any write when it is no domain or the site's own. */
async function planAdd(ctx: ToolContext, input: AddCompetitorInput) {
  const domain = competitorDomain(input.domain, 'domain');
  const site = await siteOf(ctx);
  if (site.domain === domain) throw fieldError('body', 'domain', `${domain} is the site's own domain`);
  return { domain, site };
}

/**
 * The domains whose first monitoring run add_competitor queues: the site's (its link gap changed) and
 * the competitor's, also while competitor monitoring is paused, so its profile is populated as the spec
 * has add_competitor do; the pause holds back its daily runs.
 */
const monitoredDomains = (siteDomain: string | null, domain: string): string[] => [
  ...(siteDomain ? [siteDomain] : []),
  domain,
];

/** What an estimate says of a domain added while competitor monitoring is paused. */
const PAUSED_NOTE =
  "the site's competitor monitoring is paused (PUT /v1/monitoring): this domain's first run populates its profile, and its daily runs wait until monitoring resumes";

/**
 * add_competitor with estimate: true. Tracking itself is free; a domain not monitored yet (new, or a
 * row db_insert stored) gets its first monitoring run at once, with the site's (its link gap changed):
 * a backlink profile each, and the site's link gap. A domain tracked and monitored already queues none.
 * Either way it says what monitoring the domain costs a month.
 */
async function planAddCompetitor(ctx: ToolContext, input: AddCompetitorInput, deps: PlanDeps): Promise<ToolPlan> {
  const { domain, site } = await planAdd(ctx, input);
  const paused = competitorsPaused(site);
  const monitoring = monitoringCost(domain, 'competitor', paused);
  const month = `monitoring ${domain} daily costs $${monitoring.month_usd} a month at list prices (at most $${monitoring.at_most_month_usd})`;
  const notes = paused ? [month, PAUSED_NOTE] : [month];
  const found = await rowOfDomain(ctx, domain);
  const provider = deps.monitorSource;
  if (isActive(found) && !(await neverMonitored(ctx, found)))
    return {
      data_source: DATABASE,
      calls: [],
      free: freeOf('competitor', [domain], 'tracked and monitored already: no monitoring run is queued'),
      notes,
      monitoring,
    };
  const domains = monitoredDomains(site.domain, domain);
  return {
    data_source: provider,
    calls: [
      // A first run: the domain's numbers (a bulk request of its own), its trend and its detail, as queuing it reserves.
      ...callsOf(
        provider,
        'backlinks_profile',
        domains.length,
        monitorWorkPrice({ numbers: 1, trends: 1, details: 1, gaps: 0 }),
      ),
      ...(site.domain ? callsOf(provider, 'backlinks_link_gap', 1, linkGapPrice(GAP_LIMIT)) : []),
    ],
    free: [],
    notes: [`queued monitoring runs (${domains.join(', ')}), then daily runs (monitoring: a month of them)`, ...notes],
    monitoring,
  };
}

async function addCompetitorRun(ctx: ToolContext, input: AddCompetitorInput) {
  const { domain, site } = await planAdd(ctx, input);
  const paused = competitorsPaused(site);
  const { row, created, completed } = await trackCompetitor(ctx, {
    domain,
    ...(input.display_name ? { display_name: input.display_name } : {}),
    ...(input.color ? { color: input.color } : {}),
  });
  // The first monitoring run, at once: the competitor's profile, and the site's (its link gap changed).
  const domains = monitoredDomains(site.domain, domain);
  const deferred =
    created || completed ? await queueMonitoring(ctx, ctx.siteId, site.domain, domains, ctx.now.toISOString()) : 0;
  return {
    data_source: DATABASE,
    competitor: competitorView(row),
    created,
    completed,
    monitoring_deferred: deferred,
    monitoring: monitoringCost(domain, 'competitor', paused),
  };
}
export const addCompetitor = /* @__PURE__ */ withPlan(addCompetitorRun, planAddCompetitor);
