import type { Findings } from '@cm/contract';
import type { Meter } from '../meter';
import { WEB_RESEARCH, type ResearchProvider, type ResearchRequest } from '../types';
import { fetchReadablePage, type PageFetchOptions } from './page';
import { TavilySearch } from './search';
import { BedrockSynthesis, type SourceText } from './synthesis';

/*
 * The real web research. Not exported by the providers' index: only the research worker imports it,
 * so no other function's bundle carries the Bedrock client or the DOM of the url fetcher.
 */

export type { PageFetchOptions } from './page';
export { TavilySearch } from './search';
export { BedrockSynthesis } from './synthesis';

/** reddit mode is web search kept to reddit's pages. */
const REDDIT_DOMAINS = ['reddit.com'];

export interface WebResearchParts {
  search: TavilySearch;
  synthesis: BedrockSynthesis;
  /** The url fetcher's limits and, in tests, its resolver and address policy. */
  fetch?: PageFetchOptions;
}

/**
 * web and reddit: search, with each page's text; url: the page itself, fetched through the address
 * policy. Then facts and opinions synthesized from those sources, each citing them by `src-<n>` id.
 */
export class WebResearch implements ResearchProvider {
  readonly name = WEB_RESEARCH;

  constructor(private readonly parts: WebResearchParts) {}

  async research(request: ResearchRequest, meter: Meter): Promise<Findings> {
    const accessedAt = new Date().toISOString();
    const pages =
      request.mode === 'url'
        ? [await fetchReadablePage(request.query, this.parts.fetch)].map((page) => ({
            ...page,
            title: page.title || new URL(page.url).hostname,
          }))
        : (
            await this.parts.search.search(
              request.query,
              request.mode === 'reddit' ? { domains: REDDIT_DOMAINS } : {},
              meter,
            )
          ).map((r) => ({
            url: r.url,
            title: r.title,
            text: r.content,
          }));
    const sources: SourceText[] = pages.map((page, i) => ({ id: `src-${i + 1}`, ...page }));
    const { facts, opinions } = await this.parts.synthesis.synthesize(
      { query: request.query, question: request.question },
      sources,
      meter,
    );
    return {
      facts,
      opinions,
      sources: sources.map(({ id, title, url }) => ({ id, title, url, accessed_at: accessedAt })),
    };
  }
}
