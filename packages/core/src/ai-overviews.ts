import type { AiOverview, AiOverviewHistory, RankRow } from '@cm/contract';
import { belongsTo, resultDomain } from './domains';
import { hasVolume } from './keywords';
import { roundTo } from './rounding';

/*
 * AI Overviews in rank tracking: the one weighting of a citation (docs/api/research-tools.md#ai-overviews),
 * an AI Overview share of voice beside the organic one, and the history's AI Overview presence and
 * citations per keyword and day.
 */

/**
 * A domain's share of an AI Overview: the overview's searches are shared equally among the references
 * it cites, so a domain's share is its references over all of them (a domain cited alone: 1; an
 * overview without references, or none shown: 0). The one weighting: both share-of-voice figures
 * weigh it by the keyword's volume, as the organic share weighs CTR(position).
 */
export function citationShare(overview: AiOverview, domain: string): number {
  const { references } = overview;
  if (!overview.shown || references.length === 0) return 0;
  return references.filter((r) => belongsTo(r.domain, domain)).length / references.length;
}

/** Whether an overview tells who it cites: none shown, or shown with its references loaded. */
export const citationsKnown = (overview: AiOverview | undefined): overview is AiOverview =>
  overview !== undefined && (!overview.shown || overview.references_loaded);

/** A keyword's AI Overview in a share of voice, with the keyword's volume. */
export interface MeasuredOverview {
  volume: number;
  overview: AiOverview;
}

/**
 * A domain's AI Overview share of voice: `Σ volume × citationShare / Σ volume` over the keywords whose
 * citations are known (null when there are none), and on how many of them an overview cites it.
 */
export function aiShareOfVoice(
  measured: readonly MeasuredOverview[],
  domain: string,
): { ai_sov: number | null; ai_cited: number } {
  let volume = 0;
  let weighted = 0;
  let cited = 0;
  for (const k of measured) {
    const share = citationShare(k.overview, domain);
    volume += k.volume;
    weighted += k.volume * share;
    if (share > 0) cited += 1;
  }
  return { ai_sov: volume > 0 ? roundTo(weighted / volume, 4) : null, ai_cited: cited };
}

/** The domains an overview cites, each once. */
const citedDomains = (overview: AiOverview): string[] => [
  ...new Set(overview.references.map((r) => resultDomain(r.domain))),
];

export interface AiOverviewHistoryInput {
  days: readonly string[];
  /** Each keyword with its row per day (null: no check that day). */
  grid: ReadonlyArray<{
    keyword: { keyword: string; locale: string; volume: number | null };
    byDay: ReadonlyArray<RankRow | null>;
  }>;
  siteDomain: string | null;
  competitors: readonly string[];
  colors?: ReadonlyMap<string, string>;
  /** Other domains listed besides the tracked ones, the most cited. */
  others: number;
}

/**
 * The history's AI Overviews, aligned to `days`: how many keywords showed one each day (null: no check
 * that day recorded it); per keyword, whether it was shown and the URL the overview cited of the site
 * and of each tracked competitor; per domain (the site, each tracked competitor, then the `others` most
 * cited), the keywords whose overview cites it and its AI Overview share of voice each day.
 */
export function aiOverviewHistory(input: AiOverviewHistoryInput): AiOverviewHistory {
  const { days, grid, siteDomain, competitors } = input;
  const tracked = [...(siteDomain ? [siteDomain] : []), ...competitors];
  const overviewOn = (row: RankRow | null) => row?.ai_overview;
  const shown = days.map((_d, i) => {
    const recorded = grid.flatMap(({ byDay }) => {
      const overview = overviewOn(byDay[i] ?? null);
      return overview ? [overview] : [];
    });
    return recorded.length === 0 ? null : recorded.filter((o) => o.shown).length;
  });
  const keywords = grid.map(({ keyword, byDay }) => ({
    keyword: keyword.keyword,
    locale: keyword.locale,
    shown: byDay.map((row) => overviewOn(row)?.shown ?? null),
    cited: Object.fromEntries(
      tracked.map((domain) => [
        domain,
        byDay.map((row) => overviewOn(row)?.references.find((r) => belongsTo(r.domain, domain))?.url ?? null),
      ]),
    ),
  }));
  const measuredOn = days.map((_d, i) =>
    grid.flatMap(({ keyword, byDay }) => {
      const overview = overviewOn(byDay[i] ?? null);
      return hasVolume(keyword) && citationsKnown(overview) ? [{ volume: keyword.volume, overview }] : [];
    }),
  );
  const seriesOf = (domain: string) => {
    const daily = measuredOn.map((measured) => (measured.length === 0 ? null : aiShareOfVoice(measured, domain)));
    return { cited: daily.map((d) => d?.ai_cited ?? null), sov: daily.map((d) => d?.ai_sov ?? null) };
  };
  const isTracked = (domain: string) => tracked.some((t) => belongsTo(domain, t));
  const others = [...new Set(measuredOn.flat().flatMap(({ overview }) => citedDomains(overview)))]
    .filter((domain) => !isTracked(domain))
    .map((domain) => ({ domain, ...seriesOf(domain) }))
    .map((d) => ({ ...d, total: d.sov.reduce<number>((sum, v) => sum + (v ?? 0), 0) }))
    .sort((a, b) => b.total - a.total || a.domain.localeCompare(b.domain))
    .slice(0, input.others)
    .map(({ domain, cited, sov }) => ({ domain, cited, sov }));
  const domains = [...tracked.map((domain) => ({ domain, ...seriesOf(domain) })), ...others].map((d) => {
    const color = input.colors?.get(d.domain);
    return {
      domain: d.domain,
      is_site: d.domain === siteDomain,
      is_competitor: competitors.includes(d.domain),
      ...(color ? { color } : {}),
      cited: d.cited,
      sov: d.sov,
    };
  });
  return { shown, keywords, domains };
}
