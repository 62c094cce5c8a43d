import { rankCheckPrice } from '../prices';
import type { Meter } from '../meter';
import type { CollectedSerpTask, PostedSerpTask, SerpTask, SerpTaskQueue } from '../types';
import { charge, SANDBOX } from './charge';
import { datedPlacement } from './dated-serp';
import { sandboxSerp } from './serp';
import { sandboxTaskId, sandboxTaskOf } from './serp-tasks.decoder';

/** The sandbox's standard queue: its tasks are ready at once, their SERPs derived as the live one is, on the task's day. */
export class SandboxSerpQueue implements SerpTaskQueue {
  readonly name = SANDBOX;
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
          'serp_task_post',
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
    const { keyword, locale, siteDomain, competitors, day, pages } = task;
    const placement = day === undefined ? undefined : datedPlacement(day, siteDomain, pages);
    return Promise.resolve({
      status: 'ready',
      items: sandboxSerp(keyword, locale, Math.min(depth, task.depth), { siteDomain, competitors }, placement),
    });
  }
}
