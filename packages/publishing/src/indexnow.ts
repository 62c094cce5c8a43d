import { SERVICE_LIMITS, type IndexNowMessage, type PageType } from '@cm/contract';
import {
  indexNowRequests,
  ownHost,
  pageUrl,
  retryableAnswer,
  urlsOnHost,
  type IndexNowAnswer,
  type IndexNowRequest,
} from '@cm/core';
import type { Store } from '@cm/store';
import type { PublishingContext } from './context';

/*
 * IndexNow (docs/api/publishing.md#indexnow): a change of what readers reach at a site's own domain is
 * sent to search engines within a minute. A change marks its URLs pending and, unless the site's message
 * is on its way already, queues it, delayed by the debounce window; the message's worker sends every
 * pending URL of the site then, in requests of up to 10,000. A site without a domain of its own has no
 * host to prove and sends nothing; noindex pages are none of IndexNow's business.
 */

/**
 * Tells IndexNow, within the debounce window, that `urls` of the site changed for readers, from a
 * workflow that knows the site's root (the key's grant names the site's domain): URLs not on the site's
 * own domain are left out, and a site without one sends none and pays nothing. A write per URL, and for
 * the first change of the window a conditional write and the message.
 */
export async function announceAtRoot(
  ctx: PublishingContext,
  siteId: number,
  siteRoot: string,
  urls: readonly string[],
  now = new Date(),
): Promise<void> {
  const host = ownHost(siteRoot);
  if (host) await announceOnHost(ctx, siteId, urlsOnHost(host, urls), now);
}

/** A page's change by its id (notify): its URL at the site's own domain, unless the page is noindex. */
export async function announcePage(
  ctx: PublishingContext,
  siteId: number,
  page: { type: PageType; id: string },
  now = new Date(),
): Promise<void> {
  const host = (await ctx.store.sites.get(siteId))?.served_domain;
  if (!host) return;
  const address = await ctx.store.indexNow.pageAddress(siteId, page.type, page.id);
  if (address && !address.noindex)
    await announceOnHost(ctx, siteId, [pageUrl(`https://${host}`, page.type, address.slug)], now);
}

/**
 * A page's URLs that changed without its content (a rename: its old and new URL; a removed redirect: the
 * old URL, now 404), at the site's own domain (`siteRoot`), while the page is live and indexable: a page
 * readers cannot reach answers 404 at both URLs before and after.
 */
export async function announceUrlsOf(
  ctx: PublishingContext,
  siteId: number,
  page: { type: PageType; id: string; slugs: readonly string[] },
  siteRoot: string,
  now = new Date(),
): Promise<void> {
  const host = ownHost(siteRoot);
  if (!host) return;
  const address = await ctx.store.indexNow.pageAddress(siteId, page.type, page.id);
  if (address?.live && !address.noindex)
    await announceOnHost(
      ctx,
      siteId,
      urlsOnHost(
        host,
        page.slugs.map((slug) => pageUrl(siteRoot, page.type, slug)),
      ),
      now,
    );
}

async function announceOnHost(ctx: PublishingContext, siteId: number, urls: readonly string[], now: Date) {
  if (urls.length === 0) return;
  const { indexNow } = ctx.store;
  await indexNow.mark(siteId, urls, now);
  if (!(await indexNow.claimMessage(siteId, now))) return;
  try {
    await ctx.enqueue('indexnow', { site_id: siteId }, ctx.indexNowDelaySeconds ?? SERVICE_LIMITS.indexNowDelaySeconds);
  } catch (error) {
    // Not queued: the site's next change queues the message, which sends these URLs too.
    await indexNow.releaseMessage(siteId);
    throw error;
  }
}

/** POSTs one request to IndexNow's endpoint. */
export type SubmitToIndexNow = (request: IndexNowRequest) => Promise<IndexNowAnswer>;

export interface AnnouncementDeps {
  store: Store;
  submit: SubmitToIndexNow;
  /** Tries of one request within one delivery (3): after the last, SQS delivers the message again later. */
  attempts?: number;
  /** The base of the pauses between tries (1 s): each a random share of `base × 2^try`, or the answer's Retry-After. */
  backoffMs?: number;
}

/** The longest pause between tries within one delivery: a longer wait is SQS's (its next delivery). */
const PAUSE_MAX_MS = 10_000;
/** URLs a ledger line names of its request (it says how many there were): a line stays a few KB. */
const LEDGER_URLS = 20;

/** IndexNow answered 429 or 5xx (or not at all) to every try: the message fails, and SQS delivers it again. */
export class IndexNowUnavailable extends Error {
  constructor(readonly status: number) {
    super(`IndexNow answered ${status === 0 ? 'nothing' : status}; the pending URLs stay for the next delivery`);
    this.name = 'IndexNowUnavailable';
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request, tried again after a pause while its answer is worth it: each try is a ledger line at $0. */
async function submitTried(deps: AnnouncementDeps, siteId: number, request: IndexNowRequest, deadline: AbortSignal) {
  const attempts = deps.attempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    const { status, retryAfterMs } = await deps.submit(request);
    const sent = {
      host: request.host,
      url_count: request.urlList.length,
      urls: request.urlList.slice(0, LEDGER_URLS),
      status,
    };
    await deps.store.usage.record(siteId, 'indexnow', [
      { provider: 'indexnow', endpoint: 'indexnow', cost_usd: 0, sent },
    ]);
    if (!retryableAnswer(status) || attempt >= attempts || deadline.aborted) return status;
    const backoff = Math.random() * (deps.backoffMs ?? 1000) * 2 ** attempt;
    await pause(Math.min(retryAfterMs ?? backoff, PAUSE_MAX_MS));
  }
}

/**
 * The site's message: every URL pending then, in requests of up to indexNowUrlsPerRequest, until none
 * is left. A request IndexNow took, or refused for good (400, 403, 422: recorded, not sent again),
 * clears its URLs; one it could not take now fails the delivery, the URLs kept for the next. URLs of a
 * domain the site no longer serves are dropped. At least once: a delivery again sends what is pending.
 */
export async function sendAnnouncements(
  deps: AnnouncementDeps,
  message: IndexNowMessage,
  deadline: AbortSignal,
): Promise<{ requests: number; urls: number }> {
  const { store } = deps;
  const siteId = message.site_id;
  await store.indexNow.releaseMessage(siteId);
  const host = (await store.sites.get(siteId))?.served_domain;
  const done = { requests: 0, urls: 0 };
  for (;;) {
    const pending = await store.indexNow.pending(siteId, SERVICE_LIMITS.indexNowUrlsPerRequest);
    if (pending.length === 0) return done;
    if (deadline.aborted) throw new Error('out of time with URLs pending: they are sent by the next delivery');
    const urls = host
      ? urlsOnHost(
          host,
          pending.map((item) => item.url),
        )
      : [];
    const key = host && urls.length > 0 ? await store.sites.indexNowKey(siteId) : null;
    for (const request of host && key ? indexNowRequests(host, key, urls) : []) {
      const status = await submitTried(deps, siteId, request, deadline);
      if (retryableAnswer(status)) throw new IndexNowUnavailable(status);
      done.requests++;
      done.urls += request.urlList.length;
    }
    await store.indexNow.clear(siteId, pending);
  }
}
