import type { AiOverview, SerpItem } from '@cm/contract';
import { citeSandboxTracked, sandboxAiOverview } from './ai-overview';
import { rankCheckPrice } from '../prices';
import type { Meter } from '../meter';
import type { CollectedSerpTask, PostedSerpTask, SerpContext, SerpTask, SerpTaskQueue } from '../types';
import { charge, SANDBOX } from './charge';
import { datedPlacement } from './dated-serp';
import { LIVE, placeTracked, sandboxSerp } from './serp';
import { sandboxTaskId, sandboxTaskOf } from './serp-tasks.decoder';

/** The public SERP a task is answered with: no site placed in it (placeTracked places one). */
const NO_SITE: SerpContext = { siteDomain: null, competitors: [] };

/** The sandbox's standard queue: its tasks are ready at once, their SERPs the public ones a live pull derives. */
export class SandboxSerpQueue implements SerpTaskQueue {
  readonly name = SANDBOX;
  readonly postEndpoint = 'serp_task_post';
  readonly tasksPerPost = 100;
  readonly readySeconds = 0;

  /** Each task recorded as its own call (`serp_task_post`), at the standard queue's list price with SANDBOX_LIST_PRICES=1. */
  async post(tasks: readonly SerpTask[], meter: Meter): Promise<PostedSerpTask[]> {
    const posted: PostedSerpTask[] = [];
    for (const task of tasks) {
      const price = rankCheckPrice(task.depth);
      posted.push(
        await charge(
          meter,
          this.postEndpoint,
          price,
          () => ({ tag: task.tag, id: sandboxTaskId(task) }),
          () => price,
        ),
      );
    }
    return posted;
  }

  collect(id: string, depth: number): Promise<CollectedSerpTask> {
    const task = sandboxTaskOf(id);
    if (!task) return Promise.resolve({ status: 'failed', error: `no sandbox task ${id.slice(0, 40)}` });
    const items = sandboxSerp(task.keyword, task.locale, Math.min(depth, task.depth), {
      ...NO_SITE,
      device: task.device,
    });
    return Promise.resolve({ status: 'ready', items, aiOverview: sandboxAiOverview(task.keyword, task.locale, items) });
  }

  /** The site, its pages and its competitors placed on the check's day, their positions moving from day to day. */
  placeTracked(items: readonly SerpItem[], keyword: string, locale: string, context: SerpContext): SerpItem[] {
    const { day, siteDomain, pages, device } = context;
    return placeTracked(
      items,
      keyword,
      locale,
      context,
      day === undefined ? LIVE : datedPlacement(day, siteDomain, pages, device),
    );
  }

  /** ... and its AI Overview citing the site and its competitors on some of those days. */
  citeTracked(overview: AiOverview, keyword: string, locale: string, context: SerpContext): AiOverview {
    return citeSandboxTracked(overview, keyword, locale, context);
  }
}
