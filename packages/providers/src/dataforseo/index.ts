import type { Intent, KeywordMetrics, SerpItem } from '@cm/contract';
import { INTENTS } from '@cm/contract';
import { ProviderError } from '../errors';
import type { Meter } from '../meter';
import type { CollectedSerpTask, KeywordDataProvider, PostedSerpTask, SerpTask } from '../types';
import * as z from 'zod/mini';
import { classify, DATAFORSEO, DataForSeoClient, STATUS, type DataForSeoOptions } from './client';
import { locationOf } from './locations';
import { IdeasResult, IntentResult, SearchVolumeItem, SerpResult } from './responses.decoder';

export { DataForSeoClient, classify, type DataForSeoOptions } from './client';

export const ENDPOINTS = {
  searchVolume: 'keywords_data/google_ads/search_volume/live',
  searchIntent: 'dataforseo_labs/google/search_intent/live',
  keywordIdeas: 'dataforseo_labs/google/keyword_ideas/live',
  serpOrganic: 'serp/google/organic/live/advanced',
  serpTaskPost: 'serp/google/organic/task_post',
  serpTaskGet: 'serp/google/organic/task_get/advanced',
} as const;

/** Tasks DataForSEO takes in one post to the standard queue (more are refused 40006). */
const TASKS_PER_POST = 100;
/** The standard queue's normal priority takes about 5 minutes: the first collection waits that long. */
const TASK_READY_SECONDS = 300;

/** Search intent needs keywords of at least this many characters. */
const INTENT_MIN_CHARS = 3;

const isIntent = (label: unknown): label is Intent => INTENTS.some((intent) => intent === label);
const intentOf = (label: string | null | undefined): Intent | null => (isIntent(label) ? label : null);

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Keyword metrics, ideas and organic SERPs from DataForSEO v3 (Google Ads, Labs, SERP). */
export class DataForSeoKeywordData implements KeywordDataProvider {
  readonly name = DATAFORSEO;
  private readonly client: DataForSeoClient;

  readonly serpTaskReadySeconds: number;

  constructor(options: DataForSeoOptions) {
    this.client = new DataForSeoClient(options);
    this.serpTaskReadySeconds = options.taskReadySeconds ?? TASK_READY_SECONDS;
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

  readonly serpTasksPerPost = TASKS_PER_POST;

  /** SERP tasks on the standard queue (normal priority), desktop, at each task's depth: one post, tasks matched to their answers by tag. */
  async postSerpTasks(tasks: readonly SerpTask[], meter: Meter): Promise<PostedSerpTask[]> {
    const answer = await this.client.postTasks(
      ENDPOINTS.serpTaskPost,
      tasks.map((task) => ({
        keyword: task.keyword,
        ...locationOf(task.locale, { worldwide: false }),
        depth: task.depth,
        device: 'desktop',
        priority: 1,
        tag: task.tag,
      })),
      meter,
    );
    const byTag = new Map((answer.tasks ?? []).map((task) => [task.data?.tag ?? '', task]));
    return tasks.map(({ tag }) => {
      const task = byTag.get(tag);
      if (!task) return { tag, error: 'not in the answer', retryable: true };
      if (task.status_code === STATUS.taskCreated && task.id) return { tag, id: task.id };
      return {
        tag,
        error: `${task.status_code} ${task.status_message ?? ''}`.trim(),
        retryable: classify(task.status_code) === 'transient',
      };
    });
  }

  /** A posted task's advanced results (free): organic results only, as serpOrganic reads them. */
  async collectSerpTask(id: string, depth: number, meter: Meter): Promise<CollectedSerpTask> {
    const got = await this.client.get(`${ENDPOINTS.serpTaskGet}/${encodeURIComponent(id)}`, meter);
    if ('unanswered' in got) return { status: 'pending', reason: got.unanswered };
    const { envelope } = got;
    const task = envelope.tasks?.[0];
    const code = classify(envelope.status_code) === 'ok' && task ? task.status_code : envelope.status_code;
    const message = `${code} ${(task?.status_message ?? envelope.status_message) || ''}`.trim();
    if (code === STATUS.taskHanded || code === STATUS.taskInQueue) return { status: 'pending', reason: message };
    const outcome = classify(code);
    if (outcome === 'transient') return { status: 'pending', reason: message };
    if (outcome === 'ok' || outcome === 'empty') {
      const result = z.safeParse(z.array(SerpResult), task?.result ?? []);
      return result.success
        ? { status: 'ready', items: organicItems(result.data, depth) }
        : { status: 'failed', error: 'unreadable result' };
    }
    return { status: 'failed', error: message };
  }
}

/**
 * Organic results only (ads, boxes and other item types are left out), positioned by `rank_group`; an
 * organic result without a place, a domain or a URL cannot be listed and is left out too.
 */
function organicItems(result: ReadonlyArray<z.infer<typeof SerpResult>>, depth: number): SerpItem[] {
  return (result[0]?.items ?? []).flatMap(({ type, rank_group: position, domain, url, title }) =>
    type === 'organic' &&
    typeof position === 'number' &&
    position <= depth &&
    typeof domain === 'string' &&
    typeof url === 'string'
      ? [{ position, domain, url, title: title ?? '' }]
      : [],
  );
}

export { BACKLINK_ENDPOINTS, DataForSeoBacklinkData } from './backlinks';
