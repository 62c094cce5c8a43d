import { isLive, RelinkMessage } from '@cm/contract';
import { enqueue, getStore, sqsWorker, type Observation } from '@cm/runtime';

/** Linking pages per message: small conditional writes, far inside the function's time limit. */
const PAGES_PER_MESSAGE = 100;
const PARALLEL_WRITES = 10;

/**
 * Brings every page that links to the target in line with the target's current live state, one page
 * of the link index per message; the rest of the fan-out goes back on the queue. Working from the
 * current state (not the one that queued the message) makes late, repeated and reordered messages
 * converge on the same result.
 */
async function relink(message: RelinkMessage, observation: Observation) {
  const { pages, links } = getStore();
  const { site_id: siteId, target_id: targetId, target_type: targetType } = message;
  const target = await pages.liveState(siteId, targetType, targetId);
  const live = target !== null && isLive(target.status, target.deleted);
  const batch = await links.linkingPages(siteId, targetId, { cursor: message.cursor, limit: PAGES_PER_MESSAGE });
  const now = new Date().toISOString();
  for (let i = 0; i < batch.pages.length; i += PARALLEL_WRITES) {
    await Promise.all(
      batch.pages
        .slice(i, i + PARALLEL_WRITES)
        .map((page) => (live ? links.restore(siteId, page, targetId, now) : links.suppress(siteId, page, targetId, now))),
    );
  }
  observation.metric('relinks', batch.pages.length);
  if (batch.cursor) await enqueue('relink', { ...message, cursor: batch.cursor } satisfies RelinkMessage);
  else if (message.requested_at) await pages.clearRelinkPending(siteId, targetType, targetId, message.requested_at);
}

export const handler = sqsWorker(RelinkMessage, relink);
