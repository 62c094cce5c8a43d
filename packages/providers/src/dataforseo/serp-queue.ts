import * as z from 'zod/mini';
import { ProviderError, UnknownOutcome } from '../errors';
import type { Meter } from '../meter';
import { dataForSeoPrice, dataForSeoTaskItems } from '../prices';
import type { AiOverview, SerpItem } from '@cm/contract';
import { aiOverviewOf } from './ai-overview';
import type { CollectedSerpTask, PostedSerpTask, SerpTask, SerpTaskQueue } from '../types';
import { classify, classifyHttp, DATAFORSEO, DataForSeoClient, STATUS, type DataForSeoOptions } from './client';
import { locationOf } from './locations';
import { organicItems } from './organic';
import { Billed, Envelope, SerpResult } from './responses.decoder';
import { PostedTasks } from './serp-queue.decoder';

/* DataForSEO's SERP standard queue: rank checks posted 100 to a call, then read back when ready (free). */

export const SERP_QUEUE_ENDPOINTS = {
  taskPost: 'serp/google/organic/task_post',
  taskGet: 'serp/google/organic/task_get/advanced',
} as const;
const { taskPost: TASK_POST, taskGet: TASK_GET } = SERP_QUEUE_ENDPOINTS;

/** Tasks DataForSEO takes in one post to the standard queue (more are refused 40006). */
const TASKS_PER_POST = 100;
/** The standard queue's normal priority takes about 5 minutes: the first collection waits that long. */
const TASK_READY_SECONDS = 300;

export class DataForSeoSerpQueue implements SerpTaskQueue {
  readonly name = DATAFORSEO;
  readonly postEndpoint = TASK_POST;
  readonly tasksPerPost = TASKS_PER_POST;
  readonly readySeconds: number;
  private readonly client: DataForSeoClient;

  constructor(options: DataForSeoOptions) {
    this.client = new DataForSeoClient(options);
    this.readySeconds = options.taskReadySeconds ?? TASK_READY_SECONDS;
  }

  /**
   * Tasks at normal priority, on each one's device (its `os` left to DataForSEO's default: Windows on
   * desktop, Android on mobile) and at its depth, in one call, once (never retried: a post that
   * got no answer may have created its tasks, and another would pay for them again), matched to their
   * answers by tag. Each task is recorded at the cost its answer gives it. Throws UnknownOutcome when no
   * answer came, or one that is not DataForSEO's envelope; a ProviderError when the post was refused whole.
   */
  async post(tasks: readonly SerpTask[], meter: Meter): Promise<PostedSerpTask[]> {
    const sent = tasks.map((task) => ({
      keyword: task.keyword,
      ...locationOf(task.locale, { worldwide: false }),
      depth: task.depth,
      device: task.device,
      priority: 1,
      tag: task.tag,
    }));
    const price = sent.reduce((sum, task) => sum + dataForSeoPrice(TASK_POST, dataForSeoTaskItems(TASK_POST, task)), 0);
    const hold = await meter.reserve(price, { provider: DATAFORSEO, endpoint: TASK_POST });
    const answer = await this.client.send(TASK_POST, meter, { method: 'POST', body: JSON.stringify(sent) });
    if (!('body' in answer)) {
      meter.unanswered({ provider: DATAFORSEO, endpoint: TASK_POST, cost_usd: price }, hold, answer.timedOut);
      throw new UnknownOutcome(DATAFORSEO, `${TASK_POST}: ${answer.message}`, answer.timedOut);
    }
    const decoded = z.safeParse(PostedTasks, answer.body);
    const billed = z.safeParse(Billed, answer.body);
    const posted = decoded.success ? (decoded.data.tasks ?? []) : [];
    // Each task at its own cost; an answer without its tasks at the envelope's (a billed failure costs money too).
    meter.recordEach(
      posted.length > 0
        ? posted.map((task) => ({ provider: DATAFORSEO, endpoint: TASK_POST, cost_usd: task.cost ?? 0 }))
        : [{ provider: DATAFORSEO, endpoint: TASK_POST, cost_usd: billed.success ? billed.data.cost : 0 }],
      hold,
    );
    if (answer.status !== 200)
      throw new ProviderError(
        DATAFORSEO,
        `${TASK_POST}: HTTP ${answer.status}`,
        classifyHttp(answer.status) === 'transient',
        answer.status,
      );
    if (!decoded.success) throw new UnknownOutcome(DATAFORSEO, `${TASK_POST}: unreadable response`, false);
    const top = classify(decoded.data.status_code);
    if (top !== 'ok')
      throw new ProviderError(
        DATAFORSEO,
        `${TASK_POST}: ${decoded.data.status_code} ${decoded.data.status_message}`,
        top === 'transient',
        decoded.data.status_code,
      );
    const byTag = new Map(posted.map((task) => [task.data?.tag ?? '', task]));
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

  /**
   * A posted task's advanced results (free, once; the task was paid at its post, and reading it as
   * advanced rather than regular costs nothing more): organic results, as the live SERP reads them,
   * and the AI Overview (an advanced item: regular results have none).
   */
  async collect(id: string, depth: number, meter: Meter): Promise<CollectedSerpTask> {
    const answer = await this.client.send(`${TASK_GET}/${encodeURIComponent(id)}`, meter, { method: 'GET' });
    if (!('body' in answer)) return { status: 'pending', reason: answer.message };
    if (answer.status !== 200) return { status: 'pending', reason: `HTTP ${answer.status}` };
    const decoded = z.safeParse(Envelope, answer.body);
    if (!decoded.success) return { status: 'pending', reason: 'unreadable response' };
    const envelope = decoded.data;
    const task = envelope.tasks?.[0];
    const code = classify(envelope.status_code) === 'ok' && task ? task.status_code : envelope.status_code;
    const message = `${code} ${(task?.status_message ?? envelope.status_message) || ''}`.trim();
    if (code === STATUS.taskHanded || code === STATUS.taskInQueue) return { status: 'pending', reason: message };
    const outcome = classify(code);
    if (outcome === 'transient') return { status: 'pending', reason: message };
    if (outcome === 'ok' || outcome === 'empty') {
      const result = z.safeParse(z.array(SerpResult), task?.result ?? []);
      return result.success
        ? { status: 'ready', items: organicItems(result.data, depth), aiOverview: aiOverviewOf(result.data) }
        : { status: 'failed', error: 'unreadable result' };
    }
    return { status: 'failed', error: message };
  }

  /** A real SERP names every domain that ranks: each site sees it as it is. */
  placeTracked(items: readonly SerpItem[]): SerpItem[] {
    return [...items];
  }

  /** ... and its AI Overview cites whom it cites. */
  citeTracked(overview: AiOverview): AiOverview {
    return overview;
  }
}
