import type { MetricName, MonitorMessage, RankCollectMessage, RankMessage } from '@cm/contract';
import { runMonitor, type MonitorDeps } from './monitoring';
import { runRankChecks, type RankCheckDeps } from './rank-checks';
import { collectRankChecks, type RankCollectDeps } from './rank-collect';

/*
 * The rank, rank-collect and monitor workers' runs: the workflow, then what its outcome tells the logs and metrics,
 * and the provider cost the run's meter counted, whether it ended or failed (also when its provider could
 * not be had: the dependencies are made inside the run).
 */

/** What a worker's run reports to: the runtime's Observation of the queue record. */
export interface WorkerObservation {
  log: {
    info(message: string, fields: Record<string, unknown>): void;
    warn(message: string, fields: Record<string, unknown>): void;
  };
  metric(name: MetricName, value?: number, dimensions?: Record<string, string>): void;
}

/** Runs `run`, then reports the provider cost its meter counted, whether it ended or failed. */
async function reportingCost(
  meter: { readonly costUsd: number },
  tool: 'rank_tracking' | 'monitor',
  observation: WorkerObservation,
  run: () => Promise<void>,
): Promise<void> {
  try {
    await run();
  } finally {
    observation.metric('provider_cost_usd', meter.costUsd, { tool });
  }
}

/** A site's rank checks of a day ({@link runRankChecks}), reported. */
export async function runRankWorker(
  meter: RankCheckDeps['meter'],
  depsOf: () => Promise<RankCheckDeps>,
  message: RankMessage,
  observation: WorkerObservation,
): Promise<void> {
  await reportingCost(meter, 'rank_tracking', observation, async () => {
    const outcome = await runRankChecks(await depsOf(), message);
    for (const { keyword, error } of outcome.refused)
      observation.log.warn('rank check refused by the provider', { keyword, error });
    if (outcome.claimedAlready > 0)
      observation.log.info('checked already today by another run', { keywords: outcome.claimedAlready });
    if (outcome.deferred > 0) observation.metric('rank_checks_deferred', outcome.deferred);
    if (outcome.fromShared + outcome.awaited > 0)
      observation.log.info("checked by another site's post: read from the shared cache", {
        now: outcome.fromShared,
        awaited: outcome.awaited,
      });
    observation.metric('rank_checks_posted', outcome.posted);
  });
}

/**
 * A site's rank checks collected ({@link collectRankChecks}), reported; a check not ready yet fails the
 * message, so the queue delivers it again.
 */
export async function runRankCollectWorker(
  deps: RankCollectDeps,
  message: RankCollectMessage,
  observation: WorkerObservation,
): Promise<void> {
  const outcome = await collectRankChecks(deps, message);
  for (const { keyword, error } of outcome.failed)
    observation.log.warn('rank check failed: no row that day', { keyword, error });
  if (outcome.rerun > 0)
    observation.log.info("another site's run gave its checks back: the site's run is queued again", {
      keywords: outcome.rerun,
    });
  if (outcome.pending.length > 0)
    throw new Error(
      `${outcome.pending.length} of ${message.tasks.length + (message.awaiting?.checks.length ?? 0)} SERP checks are not ready (${outcome.pending[0]?.reason}): the queue delivers the message again`,
    );
}

/** A site's monitoring run ({@link runMonitor}), reported. */
export async function runMonitorWorker(
  meter: MonitorDeps['meter'],
  depsOf: () => Promise<MonitorDeps>,
  message: MonitorMessage,
  observation: WorkerObservation,
): Promise<void> {
  await reportingCost(meter, 'monitor', observation, async () => {
    const outcome = await runMonitor(await depsOf(), message);
    for (const { domain, reason } of outcome.skipped)
      observation.log.warn('monitoring skipped until the next schedule', { domain, reason });
    if (outcome.claimedAlready.length > 0)
      observation.log.info('monitored already today by another run', { domains: outcome.claimedAlready });
    if (outcome.deferred > 0) observation.metric('monitor_runs_deferred', outcome.deferred);
  });
}
