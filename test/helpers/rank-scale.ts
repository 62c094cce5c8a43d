import { SandboxSerpQueue, type SerpTask } from '@cm/providers';
import type { TestStack } from './local';
import type { RankSite } from './rank-seed';

/*
 * What the rank tracking scale files share (test/scale/rank-*scale.test.ts, one stack a describe, so jest
 * runs the files side by side): each SERP task posted counted, monitoring's messages counted and not
 * run, and the seeded sites' ledger of rank checks of the day.
 */

/** Keywords each site tracks: RANK_SCALE_KEYWORDS. */
export const KEYWORDS = Number(process.env.RANK_SCALE_KEYWORDS ?? 5);
export const RUN_TIMEOUT_MS = 900_000;
export const SEED_TIMEOUT_MS = 240_000;
export const FIRST_DAY = Date.parse('2031-05-06T09:00:00.000Z');
export const DAY = new Date(FIRST_DAY).toISOString().slice(0, 10);
export const STRETCH_QUEUES = {
  plan_messages: 'monitor-plan',
  rank_messages: 'rank',
  collect_messages: 'rank-collect',
} as const;

/** Tasks posted per (site, keyword, day), by tag, and the posts. */
interface SerpPosts {
  tasks: Map<string, number>;
  posts: number;
}

/** The file's SERP posts, counted afresh for each test (the fields replaced before each) and posted to the sandbox. */
export function countSerpPosts(): SerpPosts {
  const counted: SerpPosts = { tasks: new Map(), posts: 0 };
  beforeEach(() => {
    counted.tasks = new Map();
    counted.posts = 0;
    const post = SandboxSerpQueue.prototype.post;
    jest.spyOn(SandboxSerpQueue.prototype, 'post').mockImplementation(function (
      this: SandboxSerpQueue,
      sent: readonly SerpTask[],
      meter,
    ) {
      counted.posts++;
      for (const task of sent) counted.tasks.set(task.tag, (counted.tasks.get(task.tag) ?? 0) + 1);
      return post.call(this, sent, meter);
    });
  });
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });
  return counted;
}

/** Monitoring's runs are counted, not run: the plan sends them beside the rank checks. */
export function countMonitoring(t: TestStack): { count: () => number } {
  let sent = 0;
  jest.spyOn(t.stack.queues.monitor, 'send').mockImplementation(() => {
    sent++;
    return Promise.resolve();
  });
  return { count: () => sent };
}

/** Ledger lines of rank checks of every seeded site on the day (`cached`: of them, those the shared cache answered): one Query per site, a few at a time. */
export async function ledgerOf(t: TestStack, sites: readonly RankSite[]): Promise<{ lines: number; cached: number }> {
  const ledger = { lines: 0, cached: 0 };
  for (let i = 0; i < sites.length; i += 16) {
    const reports = await Promise.all(
      sites
        .slice(i, i + 16)
        .map(({ siteId }) => t.store.usage.report(siteId, `${DAY}T00:00:00.000Z`, `${DAY}T23:59:59.999Z`)),
    );
    for (const line of reports.flatMap((report) => report.by_tool.filter((l) => l.tool === 'rank_tracking'))) {
      ledger.lines += line.calls;
      ledger.cached += line.cached_calls ?? 0;
    }
  }
  return ledger;
}

/** Each keyword of every seeded site posted once. */
export function expectEachCheckOnce(counted: SerpPosts, sites: readonly RankSite[]) {
  expect(counted.tasks.size).toBe(sites.length * KEYWORDS);
  expect(Math.max(...counted.tasks.values())).toBe(1);
}
