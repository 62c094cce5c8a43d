import * as z from 'zod/mini';
import { LIMITS, type AiOverview, type AiOverviewReference } from '@cm/contract';
import { AiOverviewItem, SerpResult } from './responses.decoder';

/** The page a reference cites: its URL without the fragment (Google's `#:~:text=` points at a passage of it). */
const pageOf = (url: string): string => url.split('#', 1)[0] ?? url;

/** The host of a reference's URL, when it names none itself; null when the URL is not one. */
function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname || null;
  } catch {
    return null;
  }
}

/**
 * The AI Overview of an advanced SERP (task_get/advanced; regular results carry none): not shown when
 * the SERP has no `ai_overview` item; else its references (the item's own, then its elements'), in
 * order, each page once (its URL without a fragment), at most LIMITS.aiOverviewReferencesMax, a URL longer than
 * LIMITS.aiOverviewUrlMax left out. An overview Google loaded after the page comes without its
 * references unless the task asked for them (`load_async_ai_overview`, paid extra, not asked): shown,
 * its citations not loaded. An item that cannot be read is the same: shown, nothing of it known.
 */
export function aiOverviewOf(result: ReadonlyArray<z.infer<typeof SerpResult>>): AiOverview {
  const raw = (result[0]?.items ?? []).find((item) => item.type === 'ai_overview');
  if (!raw) return { shown: false, references: [], references_loaded: true };
  const item = z.safeParse(AiOverviewItem, raw);
  if (!item.success) return { shown: true, references: [], references_loaded: false };
  const { references, items, asynchronous_ai_overview: asynchronous } = item.data;
  const all = [...(references ?? []), ...(items ?? []).flatMap((element) => element.references ?? [])];
  const kept = new Map<string, AiOverviewReference>();
  for (const reference of all) {
    if (kept.size >= LIMITS.aiOverviewReferencesMax) break;
    const url = reference.url ? pageOf(reference.url) : null;
    if (!url || url.length > LIMITS.aiOverviewUrlMax || kept.has(url)) continue;
    const { domain } = reference;
    const host = domain || hostOf(url);
    if (host) kept.set(url, { domain: host, url });
  }
  return { shown: true, references: [...kept.values()], references_loaded: kept.size > 0 || asynchronous !== true };
}
