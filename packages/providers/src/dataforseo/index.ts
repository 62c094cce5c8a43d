import type { Intent, KeywordMetrics, SerpItem } from '@cm/contract';
import { INTENTS } from '@cm/contract';
import { ProviderError } from '../errors';
import type { Meter } from '../meter';
import type { KeywordDataProvider } from '../types';
import { DATAFORSEO, DataForSeoClient, STATUS, type DataForSeoOptions } from './client';
import { organicItems } from './organic';
import { locationOf } from './locations';
import { IdeasResult, IntentResult, SearchVolumeItem, SerpResult } from './responses.decoder';

export { DataForSeoClient, classify, type DataForSeoOptions } from './client';

export const ENDPOINTS = {
  searchVolume: 'keywords_data/google_ads/search_volume/live',
  searchIntent: 'dataforseo_labs/google/search_intent/live',
  keywordIdeas: 'dataforseo_labs/google/keyword_ideas/live',
  serpOrganic: 'serp/google/organic/live/advanced',
} as const;

/** Search intent needs keywords of at least this many characters. */
const INTENT_MIN_CHARS = 3;

const isIntent = (label: unknown): label is Intent => INTENTS.some((intent) => intent === label);
const intentOf = (label: string | null | undefined): Intent | null => (isIntent(label) ? label : null);

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Keyword metrics, ideas and organic SERPs from DataForSEO v3 (Google Ads, Labs, SERP). */
export class DataForSeoKeywordData implements KeywordDataProvider {
  readonly name = DATAFORSEO;
  private readonly client: DataForSeoClient;

  constructor(options: DataForSeoOptions) {
    this.client = new DataForSeoClient(options);
  }

  /** Volume, CPC and competition from Google Ads (worldwide allowed), intent from Labs: two calls. */
  async keywordMetrics(
    keywords: readonly string[],
    locale: string,
    meter: Meter,
  ): Promise<Map<string, KeywordMetrics>> {
    const volumes = await this.client.task(
      ENDPOINTS.searchVolume,
      { keywords, ...locationOf(locale, { worldwide: true }) },
      meter,
      SearchVolumeItem,
    );
    const out = new Map<string, KeywordMetrics>();
    for (const item of volumes.result) {
      if (item.search_volume === null || item.search_volume === undefined) continue;
      out.set(item.keyword, {
        keyword: item.keyword,
        volume: item.search_volume,
        cpc_usd: item.cpc ?? null,
        competition:
          item.competition_index === null || item.competition_index === undefined
            ? null
            : round2(item.competition_index / 100),
        intent: null,
      });
    }
    const forIntent = [...out.keys()].filter((k) => k.length >= INTENT_MIN_CHARS);
    if (forIntent.length > 0) {
      const intents = await this.client.task(
        ENDPOINTS.searchIntent,
        { keywords: forIntent, language_code: locationOf(locale, { worldwide: true }).language_code },
        meter,
        IntentResult,
      );
      for (const item of intents.result[0]?.items ?? []) {
        const metrics = out.get(item.keyword);
        if (metrics) metrics.intent = intentOf(item.keyword_intent?.label);
      }
    }
    return out;
  }

  async keywordIdeas(seeds: readonly string[], locale: string, limit: number, meter: Meter): Promise<KeywordMetrics[]> {
    const ideas = await this.client.task(
      ENDPOINTS.keywordIdeas,
      { keywords: seeds, ...locationOf(locale, { worldwide: false }), limit },
      meter,
      IdeasResult,
    );
    return (ideas.result[0]?.items ?? []).slice(0, limit).map((item) => ({
      keyword: item.keyword,
      volume: item.keyword_info?.search_volume ?? null,
      cpc_usd: item.keyword_info?.cpc ?? null,
      competition: item.keyword_info?.competition ?? null,
      intent: intentOf(item.search_intent_info?.main_intent),
    }));
  }

  /** The live SERP: its organic results (organicItems). */
  async serpOrganic(keyword: string, locale: string, depth: number, meter: Meter): Promise<SerpItem[]> {
    const serp = await this.client.task(
      ENDPOINTS.serpOrganic,
      { keyword, ...locationOf(locale, { worldwide: false }), depth, device: 'desktop' },
      meter,
      SerpResult,
    );
    if (serp.outcome === 'billed_no_data') {
      // Billed, but no SERP: a failed pull for the caller (a refresh gets its unit back), worth retrying later.
      throw new ProviderError(
        DATAFORSEO,
        `${ENDPOINTS.serpOrganic}: ${STATUS.searchEngineError} the search engine failed for "${keyword}"`,
        true,
        STATUS.searchEngineError,
      );
    }
    return organicItems(serp.result, depth);
  }

  /** A real SERP names every domain that ranks: each site sees it as it is. */
  placeTracked(items: readonly SerpItem[]): SerpItem[] {
    return [...items];
  }
}

export { BACKLINK_ENDPOINTS, DataForSeoBacklinkData } from './backlinks';
export { DataForSeoSerpQueue, SERP_QUEUE_ENDPOINTS } from './serp-queue';
