import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { PAID_TOOLS, TOOL_FUNCTIONS } from '@cm/contract';
import type { FunctionId } from '../bundling';
import { DEFAULT_DATAPOINTS, type Alarms } from './alarms';
import { pascal } from './ids';

/**
 * Reserved concurrency of the functions one tenant or one slow provider can fill: each is capped, so
 * the rest of the account's concurrency (what no function reserves) always serves publish, notify,
 * read, visitor pages and the dashboard. A cap is also a floor for the capped function.
 *
 * - A paid tool: 20. A DataForSEO call stops by 20 s, so 20 is 1 call a second of a hanging provider,
 *   until its breaker opens (5 failures) and answers at once; a healthy call takes 1 to 5 s, so 20 serve
 *   4 to 20 calls a second, above the 2 a second one key may make (WAF's 120 a minute).
 * - `mcp-stream`: 20. A stream holds its function up to 5 minutes; 20 open streams is many agents at once.
 * - `mcp`: 40. Each call waits for the tool function it invokes, which is capped at 20.
 *
 * In all 7 × 20 + 20 + 40 = 200, which needs an account concurrency quota of at least 300 (Lambda keeps
 * 100 unreserved); on the default quota of 1,000, 800 are left for everything else. The queue workers'
 * concurrency is their event sources' (queues.ts).
 */
export const RESERVED_CONCURRENCY: Partial<Record<FunctionId, number>> = {
  ...Object.fromEntries(PAID_TOOLS.map((tool) => [TOOL_FUNCTIONS[tool], 20])),
  mcp: 40,
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
      Math.ceil(reserved * 0.8),
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
