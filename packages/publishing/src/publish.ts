import {
  ApiError,
  isLive,
  SERVICE_LIMITS,
  type ArticleInput,
  type PageDoc,
  type PageState,
  type PageType,
  type PublishResult,
  type QuestionInput,
} from '@cm/contract';
import { liveChanged, pageRecord, pageTypeOfId, preparePublish, readerRecord, renderPage, visitorUrl } from '@cm/core';
import type { LinkTarget } from '@cm/store';
import type { PublishingContext } from './context';
import { queueOwedRelink } from './relink';

export type PublishInput = { type: 'article'; value: ArticleInput } | { type: 'question'; value: QuestionInput };

/**
 * Upserts a page by slug. A republish that brings a page back (or takes it down) relinks the pages
 * linking to it, as a notify would; a relink an earlier call owed but could not queue goes out now.
 */
export async function publishPage(
  ctx: PublishingContext,
  siteId: number,
  input: PublishInput,
  options: { baseUrl: string; now?: Date },
): Promise<PublishResult> {
  const now = (options.now ?? new Date()).toISOString();
  const { id, doc, links, warnings } = preparePublish(siteId, input, now);
  const pageUrl = visitorUrl(options.baseUrl, siteId, input.type, doc.slug);
  assertReadable({ siteId, type: input.type, id, doc, now }, pageUrl);
  const { pages, links: linkIndex } = ctx.store;
  const page = { id, type: input.type };
  const { created, previous, version, addedLinks } = await pages.put({ siteId, ...page, doc, links, now });
  await suppressUnreachableLinks(ctx, siteId, { ...page, version }, addedLinks, now);
  const live = isLive(doc.status, false);
  // A new page was not live before: pages that linked to it ahead of its publish get their links back.
  const changed = previous
    ? liveChanged(previous, { status: doc.status, deleted: false })
    : live && (await linkIndex.hasLinkingPages(siteId, id));
  // Marked before it is queued: a later call sees the relink still owed if queueing fails.
  if (changed) await pages.markRelinkPending(siteId, input.type, id, now);
  await queueOwedRelink(
    ctx,
    { siteId, ...page },
    { changedAt: changed ? now : null, pendingSince: previous?.relink_pending },
  );
  return {
    id,
    type: input.type,
    slug: doc.slug,
    status: doc.status,
    created,
    updated_at: doc.updated_at,
    url: pageUrl,
    warnings,
  };
}

/**
 * Keeps from readers the links a publish added to pages readers cannot reach (not live, or not published
 * yet), so the page's `suppressed_links` lists every link readers do not see, whenever it started. The
 * targets are read after the link index was written: a target that changes later is relinked as usual.
 * One that came back while this ran is read again and restored, so the two converge.
 */
async function suppressUnreachableLinks(
  ctx: PublishingContext,
  siteId: number,
  page: { id: string; type: PageType; version: string },
  added: readonly string[],
  now: string,
): Promise<void> {
  const { pages, links } = ctx.store;
  const refs = added.flatMap((target) => {
    const type = pageTypeOfId(target);
    return type ? [{ id: target, type }] : [];
  });
  if (refs.length === 0) return;
  const reachable = (states: Map<string, LinkTarget>) =>
    new Set(refs.filter((ref) => states.get(ref.id)?.live).map((ref) => ref.id));
  const live = reachable(await pages.linkTargets(siteId, refs, { consistent: true }));
  const unreachable = refs.filter((ref) => !live.has(ref.id));
  if (unreachable.length === 0) return;
  if (
    !(await links.suppressAtPublish(
      siteId,
      page,
      page.version,
      unreachable.map((ref) => ref.id),
      now,
    ))
  )
    return;
  const back = reachable(await pages.linkTargets(siteId, unreachable, { consistent: true }));
  for (const target of back) await links.restore(siteId, page, target, now);
}

/** Bytes a text takes once written as a JSON string, as Lambda carries a reply's body. */
const jsonStringBytes = (text: string): number => new TextEncoder().encode(JSON.stringify(text)).length;

/**
 * A page is stored only if it can be read back: its read reply and its visitor page must each fit one
 * Lambda reply once escaped as JSON (quotes, backslashes and control characters take more room there).
 */
function assertReadable(
  publish: { siteId: number; type: PageType; id: string; doc: PageDoc; now: string },
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
  const visitor = jsonStringBytes(renderPage(readerRecord(page), { pageUrl, linkTarget: () => null }));
  const largest = Math.max(read, visitor);
  if (largest > limit) {
    throw new ApiError(
      'payload_too_large',
      `This page would take ${largest} bytes to send back (${read === largest ? 'its read reply' : 'its visitor page'}), over the ${limit} one reply carries; send less content, or fewer characters that JSON escapes (quotes, backslashes, control characters)`,
      { limit_bytes: limit },
    );
  }
}
