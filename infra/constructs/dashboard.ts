import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Dashboard, GraphWidget, MathExpression, Metric, TextWidget, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '@cm/runtime';

export interface DashboardParts {
  api: HttpApi;
  functions: ReadonlyMap<string, NodejsFunction>;
  queues: Readonly<Record<string, Queue>>;
  table: ITable;
}

const FIVE_MINUTES = Duration.minutes(5);
/** The service's own metrics (Powertools, under the service dimension). */
const own = (metricName: string, statistic: string, label: string) =>
  new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: SERVICE_NAME },
    statistic,
    label,
    period: FIVE_MINUTES,
  });

const graph = (title: string, left: IMetric[], width = 12) => new GraphWidget({ title, left, width, height: 6 });

/**
 * One CloudWatch dashboard for the person on call (docs/runbook.md): the API, the functions, the queues,
 * the table, the providers and the spend, in that order, each graph over every part of its kind.
 */
export function serviceDashboard(scope: Construct, parts: DashboardParts): Dashboard {
  const functions = [...parts.functions.entries()];
  const perFunction = (metric: (fn: NodejsFunction) => Metric, name: string) =>
    functions.map(([id, fn]) => metric(fn).with({ label: `${id} ${name}`, period: FIVE_MINUTES }));
  const queues = Object.entries(parts.queues);
  const dashboard = new Dashboard(scope, 'Dashboard', { defaultInterval: Duration.hours(6) });
  dashboard.addWidgets(
    new TextWidget({
      markdown: '# Content API\nWhat each alarm means and what to do: `docs/runbook.md`.',
      width: 24,
      height: 2,
    }),
  );
  dashboard.addWidgets(
    graph('API: requests and errors', [
      parts.api.metricCount({ period: FIVE_MINUTES, label: 'requests' }),
      parts.api.metricClientError({ period: FIVE_MINUTES, label: '4xx' }),
      parts.api.metricServerError({ period: FIVE_MINUTES, label: '5xx' }),
    ]),
    graph('API: latency', [
      parts.api.metricLatency({ period: FIVE_MINUTES, statistic: 'p50', label: 'p50' }),
      parts.api.metricLatency({ period: FIVE_MINUTES, statistic: 'p99', label: 'p99' }),
    ]),
  );
  dashboard.addWidgets(
    graph(
      'Functions: errors',
      perFunction((fn) => fn.metricErrors(), 'errors'),
    ),
    graph(
      'Functions: throttles',
      perFunction((fn) => fn.metricThrottles(), 'throttles'),
    ),
  );
  dashboard.addWidgets(
    graph(
      'Functions: duration p99',
      perFunction((fn) => fn.metricDuration({ statistic: 'p99' }), 'p99'),
    ),
    graph(
      'Functions: concurrent executions',
      perFunction((fn) => fn.metric('ConcurrentExecutions', { statistic: 'Maximum' }), 'concurrent'),
    ),
  );
  dashboard.addWidgets(
    graph(
      'Queues: age of the oldest message',
      queues.map(([name, queue]) =>
        queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum', label: name }),
      ),
    ),
    graph(
      'Queues: dead letters',
      queues.flatMap(([name, queue]) =>
        queue.deadLetterQueue
          ? [
              queue.deadLetterQueue.queue.metricApproximateNumberOfMessagesVisible({
                period: FIVE_MINUTES,
                label: `${name} dead letters`,
              }),
            ]
          : [],
      ),
    ),
  );
  dashboard.addWidgets(
    graph('Table: capacity used', [
      parts.table.metricConsumedReadCapacityUnits({ period: FIVE_MINUTES, label: 'read units' }),
      parts.table.metricConsumedWriteCapacityUnits({ period: FIVE_MINUTES, label: 'write units' }),
    ]),
    graph('Table: throttled requests', [
      new MathExpression({
        expression: 'reads + writes',
        label: 'throttle events',
        usingMetrics: {
          reads: parts.table.metric('ReadThrottleEvents', { statistic: 'Sum', period: FIVE_MINUTES }),
          writes: parts.table.metric('WriteThrottleEvents', { statistic: 'Sum', period: FIVE_MINUTES }),
        },
        period: FIVE_MINUTES,
      }),
    ]),
  );
  dashboard.addWidgets(
    graph('Providers: tool calls and refusals', [
      own('tool_calls', 'Sum', 'tool calls'),
      own('provider_calls_refused', 'Sum', 'refused (breaker open)'),
      own('provider_breaker_opened', 'Sum', 'breaker opened'),
    ]),
    graph('Spend: provider cost (USD) and the fullest site budget (%)', [
      own('provider_cost_usd', 'Sum', 'provider cost, USD'),
      own('budget_usd_used_pct', 'Maximum', 'fullest site budget, %'),
      own('scheduled_work_stopped', 'Sum', "schedule's work stopped short of the deployment's cap"),
    ]),
  );
  return dashboard;
}
