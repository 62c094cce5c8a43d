import { LIMITS, type AiOverview, type SerpItem } from '@cm/contract';
import type { SerpContext } from '../types';
import { between, shuffled, unit } from './derive';
import { datedPlacement } from './dated-serp';
import { LIVE } from './serp';

/*
 * The sandbox's AI Overviews: shown on about half of the keywords (as on Google's tracked queries),
 * citing a few of the SERP's top results; a site's view of one cites the site and its competitors now
 * and then, as its SERP places them.
 */

/** Share of keywords whose SERP shows an AI Overview. */
const SHOWN_SHARE = 0.5;
/** Share of check days on which an overview cites the site, and each competitor. */
const SITE_CITED_SHARE = 0.4;
const COMPETITOR_CITED_SHARE = 0.3;
/** The top results an overview cites from. */
const CITED_FROM = 10;

/** A public SERP's AI Overview, derived from its keyword and results: nothing of a site in it. */
export function sandboxAiOverview(keyword: string, locale: string, items: readonly SerpItem[]): AiOverview {
  const query = `${locale}\n${keyword}`;
  if (unit(query, 'ai-overview') >= SHOWN_SHARE) return { shown: false, references: [], references_loaded: true };
  const top = items.filter((item) => item.position <= CITED_FROM);
  const cited = shuffled(top, `${query}\nai-overview`).slice(0, between(query, 'ai-overview-references', 3, 8));
  return { shown: true, references: cited.map(({ domain, url }) => ({ domain, url })), references_loaded: true };
}

/**
 * A shown overview as a site sees it on its check's day: the site cited on some days (its page for the
 * keyword when it has one, as its SERP places it), each competitor on others, first among the
 * references; the rest, the public ones, kept to the most an overview keeps.
 */
export function citeSandboxTracked(
  overview: AiOverview,
  keyword: string,
  locale: string,
  context: SerpContext,
): AiOverview {
  if (!overview.shown) return overview;
  const { day, siteDomain, competitors, pages } = context;
  const placement = day === undefined ? LIVE : datedPlacement(day, siteDomain, pages);
  const query = `${locale}\n${keyword}`;
  const tracked = [
    ...(siteDomain ? [[siteDomain, SITE_CITED_SHARE] as const] : []),
    ...competitors.map((c) => [c, COMPETITOR_CITED_SHARE] as const),
  ];
  const cited = tracked
    .filter(([domain, share]) => unit(`${query}\n${domain}`, `ai-cited-${day ?? 'live'}`) < share)
    .map(([domain]) => ({ domain, url: placement.url(keyword, domain) }));
  const urls = new Set(cited.map((c) => c.url));
  const references = [...cited, ...overview.references.filter((r) => !urls.has(r.url))].slice(
    0,
    LIMITS.aiOverviewReferencesMax,
  );
  return { ...overview, references };
}
