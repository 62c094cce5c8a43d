import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LIMITS, PAID_TOOLS, toolFunction } from '@cm/contract';
import type { FunctionId } from '../bundling';
import { DEFAULT_DATAPOINTS, type Alarms } from './alarms';
import { pascal } from './ids';

/**
 * The research tool's design load: 50,000 calls a day (10,000 sites asking 5 each, the bill's
 * workload), 3 times the day's average at the peak: 1.74 calls a second.
 */
export const RESEARCH_LOAD = { callsPerDay: 50_000, peakFactor: 3 } as const;

/**
 * Seconds a research call holds its function at most: its wait for its job (`wait_ms`, 25 s at most and
 * by default; a job takes 30 to 60 s, so a call that queued one waits all of it) and a second of its own work.
 */
export const RESEARCH_CALL_SECONDS = LIMITS.waitMsMax / 1000 + 1;

/** The share of its reservation at which a capped function's alarm warns. */
const ALARM_SHARE = 0.8;

/**
 * Executions that serve a load with none refused and no alarm at its peak: the calls in flight then
 * (calls a second × the seconds each holds its function, Little's law) under ALARM_SHARE of them,
 * rounded up to the next 10.
 */
export const executionsFor = (load: { callsPerDay: number; peakFactor: number }, seconds: number): number =>
  Math.ceil(((load.callsPerDay / 86_400) * load.peakFactor * seconds) / ALARM_SHARE / 10) * 10;

/** A paid tool's cap (research's is sized from its load). */
const PAID_TOOL_EXECUTIONS = 20;
/** research at its design peak: 1.74 calls a second × 26 s = 45 in flight, 56 at 80%, so 60. */
const RESEARCH_EXECUTIONS = executionsFor(RESEARCH_LOAD, RESEARCH_CALL_SECONDS);

/**
 * Reserved concurrency of the functions one tenant or one slow provider can fill: each is capped, so
 * the rest of the account's concurrency (what no function reserves) always serves publish, notify,
 * read, visitor pages and the dashboard. A cap is also a floor for the capped function.
 *
 * - A paid tool: 20. A DataForSEO call stops by 20 s, so 20 is 1 call a second of a hanging provider,
 *   until its breaker opens (5 failures) and answers at once; a healthy call takes 1 to 5 s, so 20 serve
 *   4 to 20 calls a second, above the 2 a second one key may make (WAF's 120 a minute).
 * - `research`: 60, from its design load (RESEARCH_LOAD): a call that queues a job holds its function
 *   while it waits for it, up to 26 s, so 20 served 0.8 calls a second against a peak of 1.74; 60 hold
 *   the peak's 45 in flight under the alarm's 80%.
 * - `mcp-stream`: 20. A stream holds its function up to 5 minutes; 20 open streams is many agents at once.
 * - `mcp`: research's 60 and 40. Each call waits for the tool function it invokes: every research call
 *   at the peak coming over MCP, and two other tools at their caps of 20.
 *
 * In all 6 × 20 + 60 + 20 + 100 = 300, which needs an account concurrency quota of at least 400 (Lambda
 * keeps 100 unreserved); on the default quota of 1,000, 600 are left for everything else. The queue
 * workers' concurrency is their event sources' (queues.ts).
 */
export const RESERVED_CONCURRENCY: Partial<Record<FunctionId, number>> = {
  ...Object.fromEntries(PAID_TOOLS.map((tool) => [toolFunction(tool), PAID_TOOL_EXECUTIONS])),
  [toolFunction('research')]: RESEARCH_EXECUTIONS,
  mcp: RESEARCH_EXECUTIONS + 2 * PAID_TOOL_EXECUTIONS,
  'mcp-stream': 20,
};

/** What the stack's reserved concurrency takes from the account, for the quota it needs (docs/operations.md). */
export const RESERVED_TOTAL = Object.values(RESERVED_CONCURRENCY).reduce((sum, n) => sum + (n ?? 0), 0);

const minute = Duration.minutes(1);

/**
 * Alarms of a squeeze, each on 2 of 3 minutes: a capped function near its reservation (80%), any
 * function of the account throttled, and the table throttling requests.
 */
export function concurrencyAlarms(
  alarms: Alarms,
  capped: ReadonlyMap<FunctionId, NodejsFunction>,
  table: ITable,
): void {
  for (const [name, fn] of capped) {
    const reserved = RESERVED_CONCURRENCY[name];
    if (reserved === undefined) continue;
    alarms.add(
      `${pascal(name)}ConcurrencyAlarm`,
      `The ${name} function runs at 80% or more of its reserved concurrency of ${reserved}; past it, its calls are throttled`,
      fn.metric('ConcurrentExecutions', { statistic: 'Maximum', period: minute }),
      Math.ceil(reserved * ALARM_SHARE),
      // The reservation doing its job: publish, notify and readers stay served.
      DEFAULT_DATAPOINTS,
      'warning',
    );
  }
  alarms.add(
    'LambdaThrottlesAlarm',
    "Lambda throttled invocations: a capped function at its reservation, or the account's unreserved concurrency used up",
    new Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', statistic: 'Sum', period: minute }),
  );
  alarms.add(
    'TableThrottlesAlarm',
    'DynamoDB throttled requests to the table (reads or writes past what on-demand capacity takes at once)',
    new MathExpression({
      expression: 'reads + writes',
      usingMetrics: {
        reads: table.metric('ReadThrottleEvents', { statistic: 'Sum', period: minute }),
        writes: table.metric('WriteThrottleEvents', { statistic: 'Sum', period: minute }),
      },
      period: minute,
    }),
  );
}
