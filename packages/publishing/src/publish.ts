import type { ArticleInput, PublishResult, QuestionInput } from '@cm/contract';
import { liveChanged, preparePublish, visitorUrl } from '@cm/core';
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
  const { pages } = ctx.store;
  const { created, previous } = await pages.put({ siteId, type: input.type, id, doc, links, now });
  if (previous) {
    const changed = liveChanged(previous, { status: doc.status, deleted: false });
    // Marked before it is queued: a later call sees the relink still owed if queueing fails.
    if (changed) await pages.markRelinkPending(siteId, input.type, id, now);
    await queueOwedRelink(ctx, { siteId, type: input.type, id }, { changedAt: changed ? now : null, pendingSince: previous.relink_pending });
  }
  return {
    id,
    type: input.type,
    slug: doc.slug,
    status: doc.status,
    created,
    updated_at: doc.updated_at,
    url: visitorUrl(options.baseUrl, siteId, input.type, doc.slug),
    warnings,
  };
}
