/**
 * The service's CloudWatch metrics (embedded metric format, namespace `ContentApi`) and their units.
 * Every metric has the `service` dimension; a tool's metrics also have `tool`.
 */
export const METRICS = {
  /** Articles and questions published (created or updated). */
  publishes: 'Count',
  /** Notify calls answered. */
  notifies: 'Count',
  /** Linking pages brought in line with a page's live state by the relink worker. */
  relinks: 'Count',
  /** Calls of a research tool. */
  tool_calls: 'Count',
  /** What the data providers charged for a tool call, a research job or a monitoring run. */
  provider_cost_usd: 'None',
  /** Places under the global research cap in use, read whenever the research tool asks for one (its Maximum shows how near the cap the service runs; analyze's jobs take theirs in the worker, unmeasured). */
  research_slots_in_use: 'Count',
  /** A site's refreshes used today, read at each refresh (its Maximum shows the site nearest the daily quota). */
  refresh_quota_used: 'Count',
  /** The share of a site's budget used (spent and reserved), in percent of its tightest window, read at each paid call (Maximum: the site nearest its limit; alarms at 80 and 100). */
  budget_usd_used_pct: 'Percent',
  /** Domains a scheduled monitoring run claimed and its site's budget had no room for: skipped, and tried again by the next daily schedule (or a rerun). */
  monitor_runs_deferred: 'Count',
  /** The daily schedule's work stopped short of the deployment's daily cap, leaving the sites' own calls their share: a schedule that started nothing, or a site's run deferred (alarmed at once). */
  scheduled_work_stopped: 'Count',
  /** Rank checks a site's run claimed and its budget had no room for: skipped, and tried again by the next due schedule. */
  rank_checks_deferred: 'Count',
  /** Rank checks posted to the provider (paid), per site's run. */
  rank_checks_posted: 'Count',
  /** A provider's circuit breaker opened (by the call whose failure opened it, under the service dimension alone; alarmed at once). */
  provider_breaker_opened: 'Count',
  /** Paid calls refused at once while their provider's breaker was open (503 provider_unavailable). */
  provider_calls_refused: 'Count',
} as const;

export type MetricName = keyof typeof METRICS;
