import type { Findings, KeywordMetrics, SerpItem } from '@cm/contract';
import type { KeywordDataProvider, Meter, ResearchProvider, ResearchRequest, SerpContext } from '../types';
import { sandboxFindings } from './research';
import { sandboxIdeas, sandboxMetrics } from './keywords';
import { sandboxSerp } from './serp';

export { sandboxHasNoData } from './keywords';
export { SandboxBacklinkData, sandboxReferringDomains } from './backlinks';

const NAME = 'sandbox';

/**
 * The offline provider: data derived deterministically from the inputs, in realistic ranges, always
 * labelled `sandbox`. Its calls are free; the ledger records them at cost 0.
 */
export class SandboxKeywordData implements KeywordDataProvider {
  readonly name = NAME;

  async keywordMetrics(keywords: readonly string[], locale: string, meter: Meter): Promise<Map<string, KeywordMetrics>> {
    meter.record({ provider: NAME, endpoint: 'keyword_metrics', cost_usd: 0 });
    const out = new Map<string, KeywordMetrics>();
    for (const keyword of keywords) {
      const metrics = sandboxMetrics(keyword, locale);
      if (metrics) out.set(keyword, metrics);
    }
    return out;
  }

  async keywordIdeas(seeds: readonly string[], locale: string, limit: number, meter: Meter): Promise<KeywordMetrics[]> {
    meter.record({ provider: NAME, endpoint: 'keyword_ideas', cost_usd: 0 });
    return sandboxIdeas(seeds, locale, limit);
  }

  async serpOrganic(keyword: string, locale: string, depth: number, meter: Meter, context: SerpContext): Promise<SerpItem[]> {
    meter.record({ provider: NAME, endpoint: 'serp_organic', cost_usd: 0 });
    return sandboxSerp(keyword, locale, depth, context);
  }
}

/** The default time a sandbox research job takes, so queues and the cap behave as with slow real providers. */
export const SANDBOX_RESEARCH_MS = 3000;

/** Offline web research: takes `delayMs`, then derives its findings from the request. */
export class SandboxResearch implements ResearchProvider {
  readonly name = NAME;
  constructor(private readonly delayMs = SANDBOX_RESEARCH_MS) {}

  async research(request: ResearchRequest, meter: Meter): Promise<Findings> {
    meter.record({ provider: NAME, endpoint: `research_${request.mode}`, cost_usd: 0 });
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return sandboxFindings(request.mode, request.query, request.question, new Date().toISOString());
  }
}
