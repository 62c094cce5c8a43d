import {
  ApiError,
  DEFAULT_LOCALE,
  isLive,
  SERVICE_LIMITS,
  type ArticleInput,
  type PageDoc,
  type PageState,
  type PageType,
  type PublishResult,
  type QuestionInput,
} from '@cm/contract';
import {
  changedForReaders,
  contentHash,
  liveChanged,
  normalizeKeyword,
  pageCard,
  pageRecord,
  pageTypeOfId,
  pageUrl,
  preparePublish,
  primaryKeywordWarnings,
  readerRecord,
  renderPage,
  scheduleReported,
  schedulePublish,
} from '@cm/core';
import type { LinksToIndex, LinkTarget, PageLink } from '@cm/store';
import type { PublishingContext } from './context';
import { announceAtRoot } from './indexnow';
import { queueOwedRelink } from './relink';
import { putBySlug } from './slugs';

export type PublishInput = { type: 'article'; value: ArticleInput } | { type: 'question'; value: QuestionInput };

/**
 * Upserts a page by slug. A republish that brings a page back (or takes it down) relinks the pages
 * linking to it, as a notify would; a relink an earlier call owed but could not queue goes out now.
 */
export async function publishPage(
  ctx: PublishingContext,
  siteId: number,
  input: PublishInput,
  /** `siteRoot`: where the site's pages are (the reply's `url` is there). */
  options: { siteRoot: string; now?: Date },
): Promise<PublishResult> {
  const now = (options.now ?? new Date()).toISOString();
  const prepared = preparePublish(siteId, input, now);
  const { id: derived, links } = prepared;
  // A page on a schedule is stored as a draft until its publish_at (docs/api/publishing.md#pages-on-a-schedule).
  const { doc, schedule, warnings: scheduleWarnings } = schedulePublish(prepared.doc, input.value, now);
  const warnings = [...prepared.warnings, ...scheduleWarnings];
  const url = pageUrl(options.siteRoot, input.type, doc.slug);
  assertReadable({ siteId, type: input.type, id: derived, doc, now }, options.siteRoot, url);
  const { pageLive } = ctx.store;
  const card = pageCard(doc);
  const primaryKeyword = input.value.primary_keyword ? normalizeKeyword(input.value.primary_keyword) : null;
  // The slug's page: at the id it derives, unless a rename moved it (slugs.ts).
  const { id, put } = await putBySlug(ctx.store, {
    siteId,
    type: input.type,
    id: derived,
    doc,
    links,
    card,
    contentHash: contentHash(doc),
    now,
    schedule,
    primaryKeyword,
  });
  const page = { id, type: input.type };
  // Only a publish that names a primary keyword, or whose page named one, reads or writes the keywords' items.
  if (primaryKeyword !== null || put.previousPrimaryKeyword !== null) {
    const holders = await ctx.store.primaryKeywords.hold(siteId, page, primaryKeyword, put.previousPrimaryKeyword);
    warnings.push(...primaryKeywordWarnings(holders, options.siteRoot));
  }
  const { created, previous, version, awaited, linksToIndex } = put;
  if (linksToIndex) await indexLinks(ctx, siteId, { ...page, version }, { links, state: linksToIndex, now });
  // A new page was not live before: pages that linked to it ahead of its publish (they left a mark) get their links back.
  const changed = previous
    ? liveChanged(previous, { status: doc.status, deleted: false })
    : awaited && isLive(doc.status, false);
  // Marked before it is queued: a later call sees the relink still owed if queueing fails.
  if (changed) await pageLive.markRelinkPending(siteId, input.type, id, now);
  await queueOwedRelink(
    ctx,
    { siteId, ...page },
    { changedAt: changed ? now : null, pendingSince: previous?.relink_pending },
  );
  // A live page's content changed: if it is in the refresh queue, its 28-day measure starts (search-decay.ts).
  if (previous && put.contentChanged && isLive(doc.status, false))
    await ctx.store.refreshQueue.markRefreshed(siteId, page, now);
  if (!card.noindex && changedForReaders(previous, { status: doc.status, deleted: false }, put.contentChanged))
    await announceAtRoot(ctx, siteId, options.siteRoot, [url], new Date(now));
  return {
    id,
    type: input.type,
    slug: doc.slug,
    status: doc.status,
    created,
    updated_at: doc.updated_at,
    url,
    warnings,
    ...scheduleReported(schedule ?? {}),
  };
}

/**
 * Brings the page's link index in line with the links it was just published with (only when they are
 * not the ones indexed): the edges and link items of new links are written, those of links it no longer
 * has removed. Then each link whose target readers cannot reach (not live, or not published yet) is kept
 * from readers, so `suppressed_links` lists every link readers do not see, whenever it started; a target
 * that does not exist yet gets a mark, so its first publish relinks this page. The targets are read after
 * the edges were written, so a target that changes later is relinked as usual; one that came back while
 * this ran is read again and restored, so the two converge. Until the last write says the index has
 * these links, the page's next publish does all of it again, so a publish that failed part way is made good.
 */
async function indexLinks(
  ctx: PublishingContext,
  siteId: number,
  page: { id: string; type: PageType; version: string },
  publish: { links: readonly string[]; state: LinksToIndex; now: string },
): Promise<void> {
  const { pages, pageListings, links: linkIndex } = ctx.store;
  const { links, state, now } = publish;
  const current = state.empty ? new Map<string, PageLink>() : await linkIndex.linksOf(siteId, page);
  await linkIndex.reindex(siteId, page, [...current.keys(), ...(state.legacy?.links ?? [])], links);
  const refs = links.flatMap((target) => {
    const type = pageTypeOfId(target);
    return type ? [{ id: target, type }] : [];
  });
  if (refs.length > 0) {
    const targets = await pageListings.linkTargets(siteId, refs, { consistent: true });
    const legacySince = new Map(state.legacy?.suppressed.map((link) => [link.id, link.since]));
    const keep = refs.filter((ref) => !targets.get(ref.id)?.live && !current.get(ref.id)?.suppressed_since);
    await linkIndex.suppressAtPublish(
      siteId,
      page,
      keep.map((ref) => ({
        target: ref.id,
        suppressed_since: legacySince.get(ref.id) ?? now,
        relinked_at: current.get(ref.id)?.relinked_at ?? null,
      })),
    );
    const reachable = (states: Map<string, LinkTarget>, of: readonly { id: string }[]) =>
      of.filter((ref) => states.get(ref.id)?.live).map((ref) => ref.id);
    const wrongly = reachable(targets, refs).filter((target) => current.get(target)?.suppressed_since);
    await linkIndex.restoreAll(siteId, page, wrongly, now);
    await pages.awaitPages(
      siteId,
      refs.filter((ref) => !targets.has(ref.id)),
      now,
    );
    if (keep.length > 0) {
      const back = reachable(await pageListings.linkTargets(siteId, keep, { consistent: true }), keep);
      await linkIndex.restoreAll(siteId, page, back, now);
    }
  }
  await pages.linksIndexed(siteId, page, state.hash, state.legacy?.suppressed.map((link) => link.id) ?? null);
}

/**
 * Bytes a text takes once written as a JSON string, as Lambda carries a reply's body: counted, not
 * encoded (JSON.stringify leaves no lone surrogate, so each character counts as UTF-8 writes it).
 */
const jsonStringBytes = (text: string): number => Buffer.byteLength(JSON.stringify(text), 'utf8');

/**
 * A page is stored only if it can be read back: its read reply and its visitor page must each fit one
 * Lambda reply once escaped as JSON (quotes, backslashes and control characters take more room there).
 */
function assertReadable(
  publish: { siteId: number; type: PageType; id: string; doc: PageDoc; now: string },
  siteRoot: string,
  pageUrl: string,
): void {
  const { siteId, type, id, doc, now } = publish;
  // The page as it will read right after this publish: nothing suppressed, no site-owned parts yet.
  const page: PageState = {
    site_id: siteId,
    type,
    id,
    doc,
    status: doc.status,
    deleted: false,
    created_at: now,
    updated_at: doc.updated_at,
    suppressed: [],
    relinked_at: null,
    summary: null,
    community_answers: [],
  };
  const limit = SERVICE_LIMITS.lambdaReplyBytes;
  const read = jsonStringBytes(JSON.stringify(pageRecord(page)));
  // The site itself is not read here (its name, locale, icon: a few bytes of the page, next to the limit's megabytes).
  const site = { name: '', root: siteRoot, locale: DEFAULT_LOCALE, icon: siteRoot };
  const visitor = jsonStringBytes(renderPage(readerRecord(page), { pageUrl, site, linkTarget: () => null }));
  const largest = Math.max(read, visitor);
  if (largest > limit) {
    throw new ApiError(
      'payload_too_large',
      `This page would take ${largest} bytes to send back (${read === largest ? 'its read reply' : 'its visitor page'}), over the ${limit} one reply carries; send less content, or fewer characters that JSON escapes (quotes, backslashes, control characters)`,
      { limit_bytes: limit },
    );
  }
}
