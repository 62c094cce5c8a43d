import * as z from 'zod/mini';
import { StoredDevice } from '@cm/contract';
import type { SerpTask } from '../types';

/*
 * The sandbox's standard queue keeps nothing: a task's id is the task itself (its keyword, locale,
 * device and depth), so collecting it derives the same public SERP, offline, on any machine.
 */

const ID_PREFIX = 'sandbox-';

const TaskOfId = z.object({
  keyword: z.string(),
  locale: z.string(),
  device: StoredDevice,
  depth: z.int(),
});
type TaskOfId = z.infer<typeof TaskOfId>;

/** A task's id: the task, as base64url JSON (its tag left out: the answer matches it to its task). */
export function sandboxTaskId(task: SerpTask): string {
  const kept: TaskOfId = { keyword: task.keyword, locale: task.locale, device: task.device, depth: task.depth };
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
