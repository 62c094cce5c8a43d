import {
  ApiError,
  hasControlCharacters,
  type Device,
  type RowOf,
  type TrackedCadence,
  type TrackedScopeType,
} from '@cm/contract';
import {
  CHECKS_PER_MONTH,
  keywordCadence,
  monthlyUsd,
  pageTypeOfId,
  pageUrlOn,
  topByScore,
  type HistoryPage,
  type ScopeKeyword,
} from '@cm/core';
import { checkKey, keywordUnique } from '@cm/store';
import { pageKeywords, type ToolContext } from './context';
import { resolveScope, type Scope } from './scope';

/*
 * What rank tracking tracks: a tracked scope's keywords (cm_keywords rows, never ideas; a topic's top
 * max_keywords by score), its published pages, and what a month of its checks costs.
 */

type Reader = Pick<ToolContext, 'siteId' | 'store'>;

/** A tracked scope as its item names it. */
export interface ScopeRef {
  type: TrackedScopeType;
  id: number;
}

/** A scope's keywords as its checks take them, and those of its keywords it cannot track, with why. */
export interface TrackedKeywords {
  scope: Scope;
  tracked: ScopeKeyword[];
  untracked: Array<{ keyword: string; reason: string }>;
}

const NO_ROW =
  'no cm_keywords row in the site locale (get_keywords, or research in keywords mode, stores its metrics): not tracked';
const CONTROL_CHARACTERS =
  'has control characters (stored before they were refused): not tracked; store it again without them';
const AN_IDEA =
  'an idea (is_idea: true): ideas are not tracked until committed (get_keywords {topic_id, seeds: [keyword]}, or a page naming it)';

/**
 * The keywords a tracked scope checks: its committed keywords that have a cm_keywords row (a row's
 * volume weighs its clicks, and deleting the row stops its tracking) and no control character (one
 * stored before they were refused is never paid for), a topic's top `maxKeywords` by
 * score. The rule is the landscape's (scope.ts): a keyword a page names is committed by the page, its
 * row stored as an idea or not; a topic's other linked ideas are left out, and listed as untracked.
 * A topic or page that is gone is `404`.
 */
export async function trackedKeywordsOf(
  ctx: Reader,
  scope: ScopeRef & { max_keywords: number | null },
  locale: string,
): Promise<TrackedKeywords> {
  const resolved = await resolveScope(
    ctx,
    scope.type === 'topic' ? { topic_id: scope.id } : { page_id: scope.id },
    locale,
    { ideas: false },
  );
  const committed = resolved.keywords.filter((k) => !k.is_idea);
  const withRows = committed.filter((k) => k.keyword_id !== null && !hasControlCharacters(k.keyword));
  const tracked = scope.max_keywords === null ? withRows : topByScore(withRows, scope.max_keywords);
  const kept = new Set(tracked.map((k) => keywordUnique(k.locale, k.keyword)));
  const untracked = committed.flatMap((k) => {
    if (hasControlCharacters(k.keyword)) return [{ keyword: k.keyword, reason: CONTROL_CHARACTERS }];
    if (k.keyword_id === null) return [{ keyword: k.keyword, reason: NO_ROW }];
    return kept.has(keywordUnique(k.locale, k.keyword))
      ? []
      : [
          {
            keyword: k.keyword,
            reason: `not among the topic's top ${scope.max_keywords ?? 0} by score (max_keywords)`,
          },
        ];
  });
  return {
    scope: resolved,
    tracked,
    untracked: [...untracked, ...resolved.ideasLeftOut.map((keyword) => ({ keyword, reason: AN_IDEA }))],
  };
}

/** The same, or null when the topic or page is gone (its tracking no longer checks anything). */
export async function trackedKeywordsIfAny(
  ctx: Reader,
  scope: ScopeRef & { max_keywords: number | null },
  locale: string,
): Promise<TrackedKeywords | null> {
  try {
    return await trackedKeywordsOf(ctx, scope, locale);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return null;
    throw error;
  }
}

/** A keyword to check on a device, as often as its scopes ask. */
export type CheckedKeyword = ScopeKeyword & { cadence: TrackedCadence; device: Device };

/**
 * Each (locale, keyword, device) once, with the most frequent cadence of the scopes that track it: a
 * keyword tracked on both devices is two checks.
 */
export function distinctKeywords(
  scopes: ReadonlyArray<{ cadence: TrackedCadence; device: Device; tracked: readonly ScopeKeyword[] }>,
): CheckedKeyword[] {
  const byKey = new Map<string, CheckedKeyword>();
  for (const { cadence, device, tracked } of scopes)
    for (const k of tracked) {
      const key = checkKey(k.locale, k.keyword, device);
      const before = byKey.get(key);
      byKey.set(key, { ...k, device, cadence: before ? keywordCadence([before.cadence, cadence]) : cadence });
    }
  return [...byKey.values()];
}

/** What `keywords` keywords checked at `cadence` come to in a month of 30 days, at `unitUsd` a check. */
export function monthOf(keywords: number, cadence: TrackedCadence, unitUsd: number) {
  const checks = keywords * CHECKS_PER_MONTH[cadence];
  return { checks_per_month: Math.round(checks * 100) / 100, usd_per_month: monthlyUsd(checks, unitUsd) };
}

/**
 * The published pages among `pages` (a cm_pages row whose published_id names a page of the site, read
 * in one batch), with their address on the site's domain and their keywords.
 */
export async function publishedPagesOf(
  ctx: Reader,
  pages: readonly RowOf<'cm_pages'>[],
  siteDomain: string | null,
): Promise<Array<Omit<HistoryPage, 'keywords'> & { keywords: string[] }>> {
  const named = pages.flatMap((page) => {
    const type = page.published_id === undefined ? null : pageTypeOfId(page.published_id);
    return type && page.published_id !== undefined ? [{ page, id: page.published_id, type }] : [];
  });
  if (named.length === 0 || !siteDomain) return [];
  const found = await ctx.store.pageListings.linkTargets(
    ctx.siteId,
    named.map(({ id, type }) => ({ id, type })),
  );
  return named.flatMap(({ page, id, type }) => {
    const target = found.get(id);
    return target
      ? [
          {
            page_id: page.id,
            title: target.title,
            type,
            slug: target.slug,
            url: pageUrlOn(siteDomain, type, target.slug),
            keywords: pageKeywords(page),
          },
        ]
      : [];
  });
}
