import { isToolFunction, QUEUES, type ToolFunction } from '@cm/contract';
import { perWorkerFunction, type FunctionId } from './bundling';

/*
 * Each function's memory, chosen from `npm run bench`'s memory figures (docs/performance.md#memory).
 * Lambda gives a function CPU in proportion to its memory (1,769 MB is one vCPU), so memory buys two
 * things: room, and speed of whatever is CPU-bound. The functions wait on DynamoDB and providers for
 * most of a request; what is CPU-bound is their cold start (its module init is 45-100 ms of one core
 * here, about 3.5 times that at 512 MB) and, in the research worker, a page's readable text.
 */

/** The memory at which Lambda gives a function one whole vCPU. */
export const ONE_VCPU_MB = 1769;

/** Functions a caller waits on (the API's routes, both MCP endpoints, sign-in): a cold start at 256 MB would take twice as long as at 512. */
const ANSWERS_A_CALLER = 512;
/**
 * Work nobody waits on (queue workers, schedules) whose messages are small and bounded (a plan of 100
 * sites, a run of one site, a post of 100 checks): their RSS after init is about 60-75 MB, so 256 MB
 * leaves room, and a slower cold start delays no caller.
 */
const BACKGROUND = 256;
/** Every function's memory size in MB but the tools': a caller waits on each tool ({@link memoryOf}). */
const MEMORY_MB: Record<Exclude<FunctionId, ToolFunction>, number> = {
  discovery: ANSWERS_A_CALLER,
  publish: ANSWERS_A_CALLER,
  read: ANSWERS_A_CALLER,
  'question-parts': ANSWERS_A_CALLER,
  visitor: ANSWERS_A_CALLER,
  'site-files': ANSWERS_A_CALLER,
  notify: ANSWERS_A_CALLER,
  tools: ANSWERS_A_CALLER,
  usage: ANSWERS_A_CALLER,
  jobs: ANSWERS_A_CALLER,
  mcp: ANSWERS_A_CALLER,
  'mcp-stream': ANSWERS_A_CALLER,
  oauth: ANSWERS_A_CALLER,
  // Static files, read from its bundle: the smallest init of all (0.6 times the minimal handler's).
  dashboard: BACKGROUND,
  // Each worker's, as its queue declares (QUEUES), else the background work's.
  ...perWorkerFunction((worker) => QUEUES[worker].memoryMb ?? BACKGROUND),
  'monitor-schedule': BACKGROUND,
  'research-sweep': BACKGROUND,
  'page-schedule': BACKGROUND,
};

/** A function's memory size in MB. */
export const memoryOf = (fn: FunctionId): number => (isToolFunction(fn) ? ANSWERS_A_CALLER : MEMORY_MB[fn]);
