import { ApiError, type Enqueue, type SearchConsoleInput, type SearchConsoleView } from '@cm/contract';
import {
  normalizeDomain,
  propertyName,
  searchBackfillDays,
  searchConsoleToday,
  verificationFile,
  verificationMetaTag,
} from '@cm/core';
import { mapLimit, type SearchConsoleConnection, type Site, type Store } from '@cm/store';

/*
 * A site's Search Console connection (docs/api/search-console.md#the-connection): the property of its
 * own domain that the deployment's service account reads, and the verification token its domain serves.
 * Connecting imports the last 56 days, one message a day; the daily schedule imports each day after.
 */

export interface SearchConsoleDeps {
  store: Store;
  enqueue: Enqueue;
  /** The service account's e-mail the owner adds to the property; null in the sandbox. */
  serviceAccount: string | null;
}

/** Messages a connection's backfill sends at once. */
const SENDS_AT_ONCE = 8;

const noSite = (siteId: number) => new Error(`site ${siteId} has a key but no site item`);
/** No connection: 404 naming the account to add first, so an owner can connect before any PUT. */
const notConnected = (serviceAccount: string | null) =>
  new ApiError(
    'not_found',
    serviceAccount
      ? `This site has no Search Console connection: add ${serviceAccount} as a user of the site's property in Search Console (Settings, Users and permissions, permission Restricted), then PUT /v1/search-console with the property`
      : 'This site has no Search Console connection: PUT /v1/search-console with the property makes one (the sandbox needs no user added)',
    { service_account_email: serviceAccount },
  );

/** Queues the import of the last 56 days: a day stored final already costs its message one GetItem. */
export async function queueBackfill(enqueue: Enqueue, siteId: number, now: Date): Promise<void> {
  await mapLimit(searchBackfillDays(searchConsoleToday(now)), SENDS_AT_ONCE, (date) =>
    enqueue('search-console', { site_id: siteId, date, state: 'final' }),
  );
}

async function siteOf(store: Store, siteId: number): Promise<Site> {
  const site = await store.sites.get(siteId);
  if (!site) throw noSite(siteId);
  return site;
}

/** The connection as the API shows it: with the account to add, and the site's verification when it has a token. */
function viewOf(site: Site, connection: SearchConsoleConnection, serviceAccount: string | null): SearchConsoleView {
  const token = site.search_console_token;
  const host = site.served_domain ?? normalizeDomain(site.domain) ?? site.domain;
  return {
    property: connection.property,
    status: connection.status,
    service_account_email: serviceAccount,
    verification: token
      ? { meta_tag: verificationMetaTag(token), file_url: `https://${host}/${verificationFile(token)}` }
      : null,
    imported_through: connection.imported_through ?? null,
    last_error: connection.last_error ?? null,
    connected_at: connection.connected_at,
  };
}

/** GET /v1/search-console: the site's connection, or 404 not_found. Two GetItems. */
export async function searchConsoleView(deps: Omit<SearchConsoleDeps, 'enqueue'>, siteId: number) {
  const [site, connection] = await Promise.all([siteOf(deps.store, siteId), deps.store.searchConsole.get(siteId)]);
  if (!connection) throw notConnected(deps.serviceAccount);
  return viewOf(site, connection, deps.serviceAccount);
}

const refused = (message: string) =>
  new ApiError('validation_failed', message, { issues: [{ path: 'property', message }] });

/**
 * The property in its canonical form, when it is the site's own: of the host the site is served at
 * (unique to it, and where its verification is served), `sc-domain:<host>` or `https://<host>/`; for
 * a `www.` host also `sc-domain:` of the name without it, unless another site is served there (its
 * data is its own). Else 400 validation_failed, naming what the site may connect; nothing is stored.
 */
async function checkedProperty(store: Store, site: Site, property: string): Promise<string> {
  const served = site.served_domain;
  if (!served)
    throw refused(
      "property: the site is not served at its own domain yet, so no property is its own: serve it there first (docs/api/visitor-pages.md#the-sites-own-domain), then connect that domain's property",
    );
  const name = propertyName(property);
  const bare = served.startsWith('www.') ? served.slice('www.'.length) : null;
  if (name?.host === served) return name.canonical;
  if (name?.kind === 'domain' && name.host === bare) {
    // The site is served at one domain: a site served at the bare name is another.
    if (!(await store.sites.siteOfDomain(bare))) return name.canonical;
  }
  throw refused(
    `property: the site's Search Console property is sc-domain:${served} or https://${served}/ (the domain it is served at); ${JSON.stringify(property.slice(0, 100))} is not`,
  );
}

/**
 * PUT /v1/search-console: connects the site's property, or changes it or the verification token. The
 * token is set first (the domain serves it at once); a new property starts pending and queues the
 * import of the last 56 days. The same property again keeps the connection, and queues the 56 days
 * again while no import has read it (a day stored final is not asked twice).
 */
export async function connectSearchConsole(
  deps: SearchConsoleDeps,
  siteId: number,
  input: SearchConsoleInput,
  now: Date,
): Promise<SearchConsoleView> {
  const { store } = deps;
  let site = await siteOf(store, siteId);
  const property = await checkedProperty(store, site, input.property);
  if (input.verification_token !== undefined && input.verification_token !== site.search_console_token) {
    if (!(await store.searchConsole.setToken(siteId, input.verification_token))) throw noSite(siteId);
    site = { ...site, search_console_token: input.verification_token };
  }
  const existing = await store.searchConsole.get(siteId);
  if (existing?.property === property) {
    // Not read yet (the account added after the backfill was refused): the backfill again.
    if (existing.imported_through === undefined || existing.status !== 'connected')
      await queueBackfill(deps.enqueue, siteId, now);
    return viewOf(site, existing, deps.serviceAccount);
  }
  const connection: SearchConsoleConnection = {
    site_id: siteId,
    property,
    status: 'pending',
    connected_at: now.toISOString(),
  };
  await store.searchConsole.put(connection);
  await queueBackfill(deps.enqueue, siteId, now);
  return viewOf(site, connection, deps.serviceAccount);
}

/**
 * DELETE /v1/search-console: no more imports (a queued one finds no connection and does nothing). The
 * days imported stay until their TTL (400 days each), and the domain keeps serving the verification, so
 * the owner's verified property stays verified. Answers the connection as it was; 404 without one.
 */
export async function disconnectSearchConsole(deps: Omit<SearchConsoleDeps, 'enqueue'>, siteId: number) {
  const [site, removed] = await Promise.all([siteOf(deps.store, siteId), deps.store.searchConsole.remove(siteId)]);
  if (!removed) throw notConnected(deps.serviceAccount);
  return viewOf(site, removed, deps.serviceAccount);
}
