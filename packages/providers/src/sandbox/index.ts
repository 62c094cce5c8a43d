import type { KeywordMetrics, SerpItem } from '@cm/contract';
import type { KeywordDataProvider, Meter, SerpContext } from '../types';
import { sandboxIdeas, sandboxMetrics } from './keywords';
import { sandboxSerp } from './serp';

export { sandboxHasNoData } from './keywords';

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
