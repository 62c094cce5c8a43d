import { roundUsd, type Findings, type KeywordMetrics, type SerpItem } from '@cm/contract';
import {
  bedrockCost,
  bedrockPriceOrHighest,
  dataForSeoPrice,
  keywordMetricsPrice,
  TAVILY_PRICES,
  webResearchPrice,
} from '../prices';
import { ENDPOINTS } from '../dataforseo';
import { charge, SANDBOX } from './charge';
import type { Meter } from '../meter';
import type { KeywordDataProvider, ResearchProvider, ResearchRequest, SerpContext } from '../types';
import { sandboxFindings } from './research';
import { sandboxIdeas, sandboxMetrics } from './keywords';
import { placeTracked, sandboxSerp } from './serp';

export { sandboxHasNoData } from './keywords';
export { SandboxBacklinkData, sandboxReferringDomains } from './backlinks';
export { SandboxSerpQueue } from './serp-queue';
export { SandboxSearchConsole, sandboxSearchRows, type SandboxSearchRow } from './search-console';
export { SLIP_PLACES } from './levers';

/** A SERP pulled for no site: what every site is answered from. */
const NO_SITE: SerpContext = { siteDomain: null, competitors: [] };

/**
 * The offline provider: data derived deterministically from the inputs, in realistic ranges, always
 * labelled `sandbox`. Its calls are free, and the ledger records them at cost 0; on a meter with list
 * prices (SANDBOX_LIST_PRICES=1) they cost what DataForSEO's would, marked simulated.
 */
export class SandboxKeywordData implements KeywordDataProvider {
  readonly name = SANDBOX;

  keywordMetrics(keywords: readonly string[], locale: string, meter: Meter): Promise<Map<string, KeywordMetrics>> {
    const run = () => {
      const out = new Map<string, KeywordMetrics>();
      for (const keyword of keywords) {
        const metrics = sandboxMetrics(keyword, locale);
        if (metrics) out.set(keyword, metrics);
      }
      return out;
    };
    return charge(meter, 'keyword_metrics', keywordMetricsPrice(keywords.length), run, (found) =>
      keywordMetricsPrice(found.size),
    );
  }

  keywordIdeas(seeds: readonly string[], locale: string, limit: number, meter: Meter): Promise<KeywordMetrics[]> {
    const price = (items: number) => dataForSeoPrice(ENDPOINTS.keywordIdeas, items);
    return charge(
      meter,
      'keyword_ideas',
      price(limit),
      () => sandboxIdeas(seeds, locale, limit),
      (ideas) => price(ideas.length),
    );
  }

  /** The public SERP: the keyword's well-known domains, no site placed (placeTracked places a site's). */
  serpOrganic(keyword: string, locale: string, depth: number, meter: Meter): Promise<SerpItem[]> {
    const price = dataForSeoPrice(ENDPOINTS.serpOrganic, depth);
    return charge(
      meter,
      'serp_organic',
      price,
      () => sandboxSerp(keyword, locale, depth, NO_SITE),
      () => price,
    );
  }

  placeTracked(items: readonly SerpItem[], keyword: string, locale: string, context: SerpContext): SerpItem[] {
    return placeTracked(items, keyword, locale, context);
  }
}

/** The default time a sandbox research job takes, so queues and the cap behave as with slow real providers. */
export const SANDBOX_RESEARCH_MS = 3000;
/** What a sandbox synthesis is billed as, in tokens: a typical prompt of five sources and answer, under the most reserved. */
const SANDBOX_SYNTHESIS_TOKENS = { input: 6000, output: 1200 };

/** Offline web research: takes `delayMs`, then derives its findings from the request; with list prices, priced as `modelId`'s synthesis. */
export class SandboxResearch implements ResearchProvider {
  readonly name = SANDBOX;
  constructor(
    private readonly delayMs = SANDBOX_RESEARCH_MS,
    private readonly modelId = '',
  ) {}

  async research(request: ResearchRequest, meter: Meter): Promise<Findings> {
    const search = request.mode === 'url' ? 0 : TAVILY_PRICES.searchCredits.basic * TAVILY_PRICES.usdPerCredit;
    const bill = roundUsd(search + bedrockCost(bedrockPriceOrHighest(this.modelId), SANDBOX_SYNTHESIS_TOKENS));
    await charge(
      meter,
      `research_${request.mode}`,
      webResearchPrice(request.mode, this.modelId),
      () => null,
      () => bill,
    );
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return sandboxFindings(request.mode, request.query, request.question, new Date().toISOString());
  }
}
