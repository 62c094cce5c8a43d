import { ApiError, fieldError, LIMITS, type AddCompetitorInput } from '@cm/contract';
import { normalizeDomain } from '@cm/core';
import { RowConflict, type StoredRow } from '@cm/store';
import { DATABASE, siteOf, type ToolContext } from './context';

/* Competitors: at most LIMITS.activeCompetitors active per site, each holding one place of the site's competitor cap. */

/** A confirmed competitor's place never expires; it is freed when its row is deleted. */
const CONFIRMED = Number.MAX_SAFE_INTEGER;
/** A place taken for a row not stored yet; if the adding call dies, it can be reclaimed after this. */
const PENDING_MS = 60_000;
/** How long a call waits for a concurrent add of the same domain to store its row. */
const SAME_DOMAIN_WAIT_MS = 3_000;

const limitReached = () =>
  new ApiError('competitor_limit_reached', `A site tracks at most ${LIMITS.activeCompetitors} active competitors; delete one with db_delete first`, {
    max_active: LIMITS.activeCompetitors,
  });

/** The domain as tracked, or a 400 naming `path`. */
export function competitorDomain(input: string, path: string): string {
  const domain = normalizeDomain(input);
  if (!domain) throw fieldError('body', path, 'must be a domain name such as example.com (a URL is fine: its scheme and path are stripped)');
  return domain;
}

async function rowOfDomain(ctx: ToolContext, domain: string): Promise<StoredRow | null> {
  const id = (await ctx.store.rows.idsByUnique(ctx.siteId, 'cm_competitors', [domain])).get(domain);
  return id === undefined ? null : ctx.store.rows.get(ctx.siteId, 'cm_competitors', id);
}

/**
 * Stores an active competitor row under the cap, exactly, with single-item conditional writes only:
 * the domain first takes a place on the site's cap item (LIMITS.activeCompetitors, one per domain), then its row is
 * stored and the place confirmed. An active domain already tracked answers its row with `created: false`.
 * A place is reclaimed only when its domain has no row: a pending add that died, or a delete that
 * stopped between removing the row and freeing the place.
 */
export async function trackCompetitor(ctx: ToolContext, fields: Record<string, unknown> & { domain: string }): Promise<{ row: StoredRow; created: boolean }> {
  const { domain } = fields;
  const existing = await rowOfDomain(ctx, domain);
  if (existing) return { row: existing, created: false };
  const places = ctx.store.competitorPlaces(ctx.siteId);
  const now = ctx.now.getTime();
  const taken = await places.take(
    domain,
    now + PENDING_MS,
    now,
    async (holder, expiry) => (expiry <= now || expiry === CONFIRMED) && !(await rowOfDomain(ctx, holder)),
  );
  if (!taken.taken) {
    // The same domain may hold a place already: a concurrent add, which answers with its row.
    if ((await places.state()).leases[domain] === undefined) throw limitReached();
    const deadline = Date.now() + SAME_DOMAIN_WAIT_MS;
    while (Date.now() < deadline) {
      const row = await rowOfDomain(ctx, domain);
      if (row) return { row, created: false };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw limitReached();
  }
  let row: StoredRow;
  try {
    row = await ctx.store.rows.insert(ctx.siteId, 'cm_competitors', { ...fields, active: true, added_at: ctx.now.toISOString() }, ctx.now.toISOString());
  } catch (error) {
    if (!(error instanceof RowConflict)) {
      await places.free(domain);
      throw error;
    }
    // A row stored without a place (before the cap was kept this way) now holds the place it takes.
    row = (await ctx.store.rows.get(ctx.siteId, 'cm_competitors', error.existingId))!;
    await places.hold(domain, CONFIRMED);
    return { row, created: false };
  }
  if (!(await places.hold(domain, CONFIRMED))) {
    // The pending place was reclaimed (this call stalled past PENDING_MS) and the cap is full again.
    await ctx.store.rows.delete(ctx.siteId, 'cm_competitors', row.id);
    throw limitReached();
  }
  return { row, created: true };
}

/** Frees the place of a deleted competitor row, which stops its monitoring too (monitoring reads the rows). */
export async function untrackCompetitor(ctx: ToolContext, row: StoredRow): Promise<void> {
  await ctx.store.competitorPlaces(ctx.siteId).free(String(row.domain));
}

const competitorView = (row: StoredRow) => ({
  id: row.id,
  domain: String(row.domain),
  display_name: (row.display_name as string | undefined) ?? null,
  color: (row.color as string | undefined) ?? null,
  active: row.active === true,
  added_at: String(row.added_at),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** The monitoring messages of a site's domains: backlink snapshots are taken by the monitor worker. */
export async function queueMonitoring(ctx: Pick<ToolContext, 'enqueue'>, siteId: number, domains: readonly string[], requestedAt: string) {
  await Promise.all(domains.map((domain) => ctx.enqueue('monitor', { site_id: siteId, domain, requested_at: requestedAt })));
}

export async function addCompetitor(ctx: ToolContext, input: AddCompetitorInput) {
  const domain = competitorDomain(input.domain, 'domain');
  const site = await siteOf(ctx);
  if (site.domain === domain) throw fieldError('body', 'domain', `${domain} is the site's own domain`);
  const { row, created } = await trackCompetitor(ctx, {
    domain,
    ...(input.display_name ? { display_name: input.display_name } : {}),
    ...(input.color ? { color: input.color.toLowerCase() } : {}),
  });
  // The first monitoring run, at once: the new competitor's profile, and the site's (its link gap changed).
  if (created) await queueMonitoring(ctx, ctx.siteId, [...(site.domain ? [site.domain] : []), domain], ctx.now.toISOString());
  return { data_source: DATABASE, competitor: competitorView(row), created };
}
