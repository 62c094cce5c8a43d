import { Bug } from '@cm/core';
import { parseArgs } from 'node:util';
import { WORKERS, type WorkerName } from '@cm/contract';
import { resetServices, setQueueTransport } from '@cm/runtime';
import { lambdaContext, scheduledEvent } from './context';
import { monitorSchedule, WORKER_HANDLERS } from './handlers';
import { InProcessQueue } from './queue';

const USAGE = `Usage: npm run schedule -- [--date YYYY-MM-DD]

Runs the daily schedule as of --date (default today, UTC), as EventBridge runs it on AWS: monitoring and
the rank checks due that day, whose rows are dated that day. The work it queues runs here, in this
process, on the same handlers, to completion; then it prints what ran, as one line of JSON. With no
provider credentials the sandbox answers, offline: a run of consecutive dates builds a rank history to
try serp_landscape history_days on.

Reaches the table as npm run sites does: DYNAMODB_ENDPOINT (default the local stack's,
http://127.0.0.1:DYNAMODB_PORT, port 8000 unless set) and TABLE_NAME (default content).`;

/** When the schedule fires on a day: its rule's time of day on AWS does not matter, its date does. */
const FIRES_AT = 'T06:00:00.000Z';
const SCHEDULE_TIMEOUT_MS = 5 * 60_000;

export interface ScheduleOutput {
  log(line: string): void;
  error(line: string): void;
}

/** The date of --date, or null when it is no calendar date. */
function dateOf(text: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const at = new Date(`${text}${FIRES_AT}`);
  return Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== text ? null : at;
}

/**
 * `npm run schedule -- --date YYYY-MM-DD` (packages/local/src/schedule-cli.ts): the daily schedule as of
 * a date, and every message it queues, handled in this process until no queue has work. The exit code:
 * 0 done, 1 a failure (or messages left dead), 2 bad options.
 */
export async function runScheduleCommand(
  argv: string[],
  out: ScheduleOutput,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let values;
  try {
    values = parseArgs({ args: argv, options: { date: { type: 'string' }, help: { type: 'boolean' } } }).values;
  } catch (error) {
    out.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    out.error(USAGE);
    return 0;
  }
  const at = values.date === undefined ? new Date() : dateOf(values.date);
  if (!at) {
    out.error(`--date: must be a date YYYY-MM-DD\n${USAGE}`);
    return 2;
  }
  // The handlers read their table as the local stack's do; the endpoint as npm run sites reaches it.
  env.DYNAMODB_ENDPOINT ||= `http://127.0.0.1:${env.DYNAMODB_PORT || 8000}`;
  env.TABLE_NAME ||= 'content';
  resetServices();
  const queues = new Map<WorkerName, InProcessQueue>(
    WORKERS.map((name) => [name, new InProcessQueue(name, WORKER_HANDLERS[name])]),
  );
  const all = [...queues.values()];
  setQueueTransport({
    send: (name, body, delaySeconds) => {
      const queue = queues.get(name);
      if (!queue) throw new Bug(`no queue ${name}`);
      return queue.send(body, (delaySeconds ?? 0) * 1000);
    },
  });
  try {
    const planned = await monitorSchedule(scheduledEvent(at), lambdaContext('monitor-schedule', SCHEDULE_TIMEOUT_MS));
    while (!all.every((q) => q.isIdle())) await Promise.all(all.map((q) => q.idle()));
    const dead = all.reduce((sum, q) => sum + q.deadLetters.length, 0);
    out.log(
      JSON.stringify({
        date: at.toISOString().slice(0, 10),
        ...planned,
        messages: Object.fromEntries([...queues].map(([name, queue]) => [name, queue.sent])),
        dead_letters: dead,
      }),
    );
    return dead > 0 ? 1 : 0;
  } catch (error) {
    out.error(`schedule: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    for (const queue of all) queue.stop();
    setQueueTransport(undefined);
    resetServices();
  }
}
