import * as z from 'zod/mini';
import type { SerpTask } from '../types';

/*
 * The sandbox's standard queue keeps nothing: a task's id is the task itself (its keyword, locale, depth
 * and what the sandbox places in its SERP), so collecting it derives the same SERP, offline, on any machine.
 */

const ID_PREFIX = 'sandbox-';

const TaskOfId = z.object({
  keyword: z.string(),
  locale: z.string(),
  depth: z.int(),
  siteDomain: z.nullable(z.string()),
  competitors: z.array(z.string()),
  day: z.optional(z.string()),
  pages: z.optional(z.array(z.object({ url: z.string(), keywords: z.array(z.string()) }))),
});
type TaskOfId = z.infer<typeof TaskOfId>;

/** A task's id: the task, as base64url JSON (its tag left out: the answer matches it to its task). */
export function sandboxTaskId(task: SerpTask): string {
  const { siteDomain, competitors, day, pages } = task.context;
  const kept: TaskOfId = {
    keyword: task.keyword,
    locale: task.locale,
    depth: task.depth,
    siteDomain,
    competitors: [...competitors],
    ...(day === undefined ? {} : { day }),
    // Only the pages that target this keyword: the sandbox places no other.
    ...(pages
      ? {
          pages: pages
            .filter((p) => p.keywords.includes(task.keyword))
            .map((p) => ({ ...p, keywords: [task.keyword] })),
        }
      : {}),
  };
  return `${ID_PREFIX}${Buffer.from(JSON.stringify(kept), 'utf8').toString('base64url')}`;
}

/** The task an id names, or null for an id the sandbox never gave. */
export function sandboxTaskOf(id: string): TaskOfId | null {
  if (!id.startsWith(ID_PREFIX)) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(id.slice(ID_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const task = z.safeParse(TaskOfId, json);
  return task.success ? task.data : null;
}
