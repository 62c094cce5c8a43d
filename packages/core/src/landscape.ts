import { LIMITS, type AiOverview, type Intent, type SerpItem, type SerpRow } from '@cm/contract';
import { belongsTo, resultDomain } from './domains';
import { aiShareOfVoice, citationsKnown } from './ai-overviews';
import { hasVolume, keywordScore } from './keywords';
import { ctrOn, PUBLISHED_CTR_CURVE, visibilityOn, type CtrCurve } from './visibility';
import { roundTo } from './rounding';

/** The share of a keyword's searches a position gets on the published curve (visibility.ts). */
export const ctrAt = (position: number): number => ctrOn(PUBLISHED_CTR_CURVE, position);

/** Below this share of keywords with volume, the SOV verdict is withheld. */
export const VERDICT_MIN_VOLUME_COVERAGE = LIMITS.verdictMinVolumeCoverage;
/** How far ahead one side must be to lead rather than contend. */
export const VERDICT_LEAD_RATIO = 1.2;
/** Domains listed in the SOV rollup besides the site and its competitors. */
export const SOV_TOP_DOMAINS = 20;

/** A keyword in the scope of serp_landscape, with its stored metrics when it has any. */
export interface ScopeKeyword {
  keyword: string;
  keyword_id: number | null;
  /** A stored idea (cm_keywords is_idea): never a list or analyze target. */
  is_idea: boolean;
  locale: string;
  volume: number | null;
  cpc_usd: number | null;
  competition: number | null;
  intent: Intent | null;
}

export interface LandscapeInput {
  keywords: readonly ScopeKeyword[];
  /** The stored SERP row a keyword shows, if it has one. */
  serpOf(keyword: Pick<ScopeKeyword, 'locale' | 'keyword'>): SerpRow | undefined;
  siteDomain: string | null;
  competitors: readonly string[];
  /** The tracked competitors' stored chart colours, by domain (a competitor without one is absent). */
  colors?: ReadonlyMap<string, string>;
  /** The curve positions are weighed by (visibility.ts ctrCurveOf); the published one when absent. */
  ctrCurve?: CtrCurve;
}

/** Best position of a domain among the results, or null. */
export function positionOf(items: readonly Pick<SerpItem, 'domain' | 'position'>[], domain: string): number | null {
  let best: number | null = null;
  for (const item of items)
    if (belongsTo(item.domain, domain) && (best === null || item.position < best)) best = item.position;
  return best;
}

/** Domains of the top results (LIMITS.untrackedCompetitorPositions) that are neither the site nor a tracked competitor, best first. */
export function untrackedCompetitors(
  items: readonly SerpItem[],
  siteDomain: string | null,
  tracked: readonly string[],
): string[] {
  const out: string[] = [];
  for (const item of [...items].sort((a, b) => a.position - b.position)) {
    if (item.position > LIMITS.untrackedCompetitorPositions) break;
    const domain = resultDomain(item.domain);
    if (siteDomain && belongsTo(domain, siteDomain)) continue;
    if (tracked.some((t) => belongsTo(domain, t))) continue;
    if (!out.includes(domain)) out.push(domain);
  }
  return out;
}

export function serpSummary(row: SerpRow, siteDomain: string | null, competitors: readonly string[]) {
  const top: string[] = [];
  for (const item of [...row.items].sort((a, b) => a.position - b.position)) {
    if (item.position > LIMITS.serpTopDomains) break;
    const domain = resultDomain(item.domain);
    if (!top.includes(domain)) top.push(domain);
  }
  return {
    locale: row.locale,
    fetched_at: row.fetched_at,
    data_source: row.data_source,
    site_position: siteDomain ? positionOf(row.items, siteDomain) : null,
    competitor_positions: competitors.flatMap((domain) => {
      const position = positionOf(row.items, domain);
      return position === null ? [] : [{ domain, position }];
    }),
    top_domains: top,
    ...(row.ai_overview ? { ai_overview: overviewSummary(row.ai_overview, siteDomain, competitors) } : {}),
  };
}

/** A SERP's AI Overview as its summary shows it: shown, the URL it cites of the site, the competitors it cites. */
function overviewSummary(overview: AiOverview, siteDomain: string | null, competitors: readonly string[]) {
  const citing = (domain: string) => overview.references.find((r) => belongsTo(r.domain, domain));
  return {
    shown: overview.shown,
    site_url: (siteDomain ? citing(siteDomain)?.url : undefined) ?? null,
    competitors_cited: competitors.filter((c) => citing(c) !== undefined),
  };
}

export type Verdict = 'leads' | 'contends' | 'trails';

/**
 * Share of voice per domain: `Σ volume_k × ctr(rank_k) / Σ volume_k` over the keywords that have both
 * volume and SERP data, beside its visibility and estimated clicks a day (visibility.ts), on the curve
 * it names; and whether the site leads, contends with or trails its best competitor.
 */
export function shareOfVoice(input: LandscapeInput, volumeCoverage: number) {
  const measured = input.keywords.flatMap((k) => {
    const serp = input.serpOf(k);
    return serp && hasVolume(k) ? [{ volume: k.volume, items: serp.items, overview: serp.ai_overview }] : [];
  });
  const withOverviews = measured.flatMap(({ volume, overview }) =>
    citationsKnown(overview) ? [{ volume, overview }] : [],
  );
  const totalVolume = measured.reduce((sum, k) => sum + k.volume, 0);
  const curve = input.ctrCurve ?? PUBLISHED_CTR_CURVE;
  // A domain's share counts its subdomains too (blog.example.com ranks for example.com).
  const sovOf = (domain: string) => {
    let weighted = 0;
    let ranked = 0;
    const positions = measured.map((k) => ({ volume: k.volume, position: positionOf(k.items, domain) }));
    for (const { volume, position } of positions) {
      if (position !== null) {
        weighted += volume * ctrOn(curve, position);
        ranked += 1;
      }
    }
    return {
      domain,
      sov: totalVolume ? roundTo(weighted / totalVolume, 4) : 0,
      ...visibilityOn(curve, positions),
      keywords_ranked: ranked,
      ...aiShareOfVoice(withOverviews, domain),
    };
  };

  const own = input.siteDomain;
  const tracked = (domain: string) =>
    (own !== null && belongsTo(domain, own)) || input.competitors.some((c) => belongsTo(domain, c));
  const others = [...new Set(measured.flatMap((k) => k.items.map((item) => resultDomain(item.domain))))]
    .filter((domain) => !tracked(domain))
    .map(sovOf)
    .sort((a, b) => b.sov - a.sov)
    .slice(0, SOV_TOP_DOMAINS)
    .map((d) => ({ ...d, is_site: false, is_competitor: false }));
  const list = [
    ...(own ? [{ ...sovOf(own), is_site: true, is_competitor: false }] : []),
    ...input.competitors.map((c) => {
      const color = input.colors?.get(c);
      return { ...sovOf(c), is_site: false, is_competitor: true, ...(color ? { color } : {}) };
    }),
    ...others,
  ].sort((a, b) => b.sov - a.sov || a.domain.localeCompare(b.domain));

  return {
    domains: list,
    ctr_curve: curve.name,
    ...verdictOf(list, measured.length, volumeCoverage, input.competitors.length > 0),
  };
}

function verdictOf(
  domains: ReadonlyArray<{ domain: string; sov: number; is_site: boolean; is_competitor: boolean }>,
  measured: number,
  volumeCoverage: number,
  hasCompetitors: boolean,
): { verdict: Verdict | null; verdict_reason: string } {
  if (volumeCoverage < VERDICT_MIN_VOLUME_COVERAGE) {
    return {
      verdict: null,
      verdict_reason: `volume coverage is ${roundTo(volumeCoverage * 100, 1)}%, below the ${VERDICT_MIN_VOLUME_COVERAGE * 100}% a verdict needs`,
    };
  }
  if (measured === 0) return { verdict: null, verdict_reason: 'no keyword in scope has both volume and SERP data' };
  const site = domains.find((d) => d.is_site);
  if (!site) return { verdict: null, verdict_reason: 'the site has no domain to compare' };
  const rivals = domains.filter((d) => !d.is_site && (hasCompetitors ? d.is_competitor : true));
  const best = rivals.reduce<(typeof rivals)[number] | undefined>(
    (top, d) => (!top || d.sov > top.sov ? d : top),
    undefined,
  );
  const against = hasCompetitors
    ? 'the best tracked competitor'
    : 'the strongest other domain (no competitors are tracked)';
  if (!best || (best.sov === 0 && site.sov === 0)) {
    return { verdict: null, verdict_reason: 'neither the site nor a rival ranks for the measured keywords' };
  }
  const versus = `site ${site.sov} vs ${best.domain} ${best.sov}, ${against}`;
  if (site.sov > best.sov * VERDICT_LEAD_RATIO) return { verdict: 'leads', verdict_reason: versus };
  if (best.sov > site.sov * VERDICT_LEAD_RATIO) return { verdict: 'trails', verdict_reason: versus };
  return { verdict: 'contends', verdict_reason: versus };
}

/**
 * The metrics of serp_landscape: coverage header, keywords best score first, and share of voice. The
 * coverage and the share of voice are of the committed keywords (spec: metrics per committed keyword);
 * ideas in the scope are listed, marked, beside them.
 */
export function landscapeMetrics(input: LandscapeInput) {
  const keywords = input.keywords
    .map((k) => {
      const serp = input.serpOf(k);
      return {
        keyword: k.keyword,
        keyword_id: k.keyword_id,
        locale: k.locale,
        volume: k.volume,
        cpc_usd: k.cpc_usd,
        competition: k.competition,
        intent: k.intent,
        is_idea: k.is_idea,
        score: keywordScore(k),
        serp: serp ? serpSummary(serp, input.siteDomain, input.competitors) : null,
      };
    })
    .sort((a, b) => b.score - a.score || a.keyword.localeCompare(b.keyword));
  const committed = keywords.filter((k) => !k.is_idea);
  const total = committed.length;
  const withVolume = committed.filter(hasVolume).length;
  const withSerp = committed.filter((k) => k.serp !== null).length;
  const volumeCoverage = total ? withVolume / total : 0;
  return {
    coverage: {
      keywords: total,
      with_volume: withVolume,
      with_serp: withSerp,
      volume_pct: total ? roundTo((withVolume / total) * 100, 1) : 0,
      serp_pct: total ? roundTo((withSerp / total) * 100, 1) : 0,
    },
    keywords,
    sov: shareOfVoice({ ...input, keywords: input.keywords.filter((k) => !k.is_idea) }, volumeCoverage),
  };
}
