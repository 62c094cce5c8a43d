import { CfnOutput, Duration, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  PAID_TOOLS,
  PROVIDER_TIMEOUTS,
  SERVICE_LIMITS,
  toolFunction,
  visibilityTimeoutSeconds,
  type FunctionName,
  type WorkerName,
} from '@cm/contract';
import { METRICS_NAMESPACE, SERVICE_NAME } from '@cm/runtime';
import { pascal } from './ids';

/**
 * How many of the latest periods an alarm looks at, and how many of them must breach: by default 2 of
 * 3, so one stray datapoint (a single slow call, one retried message) does not page anyone.
 */
export interface Datapoints {
  evaluationPeriods: number;
  datapointsToAlarm: number;
}
export const DEFAULT_DATAPOINTS: Datapoints = { evaluationPeriods: 3, datapointsToAlarm: 2 };
/** For an alarm whose one datapoint is already the whole story (a site at 100% of its budget). */
export const ONE_DATAPOINT: Datapoints = { evaluationPeriods: 1, datapointsToAlarm: 1 };

/**
 * How urgent an alarm is, and so where it goes: `critical` (the service fails its callers or loses work:
 * someone acts now) to the alarm topic, `warning` (a limit doing its job, a provider's outage, a site's
 * budget: worth a look in working hours) to the warning topic. docs/runbook.md has each alarm.
 */
export type Severity = 'critical' | 'warning';

/**
 * Every alarm notifies its severity's topic when it fires and again when it is OK; subscribe to them
 * (or pass `-c alarmEmail=…`, which subscribes to both). The topics, their subscriptions and outputs
 * are the stack's; the alarms may be made elsewhere (`alarmScope`: the service stack's nested stack of
 * alarms, which keeps them out of its 500 resources).
 */
export class Alarms {
  /** The critical alarms' topic. */
  readonly topic: Topic;
  readonly warningTopic: Topic;

  constructor(
    private readonly scope: Construct,
    email?: string,
    private readonly alarmScope: Construct = scope,
  ) {
    this.topic = this.alarmTopic('AlarmTopic', email);
    this.warningTopic = this.alarmTopic('WarningTopic', email);
  }

  /** The topics' ARNs as the stack's outputs, to subscribe to without `-c alarmEmail`. */
  outputs(): void {
    new CfnOutput(this.scope, 'AlarmTopicArn', {
      value: this.topic.topicArn,
      description: 'Critical alarms (someone acts now), when they fire and when they are OK again',
    });
    new CfnOutput(this.scope, 'WarningTopicArn', {
      value: this.warningTopic.topicArn,
      description: 'Warning alarms (a limit doing its job, a provider down, a site budget), when they fire and clear',
    });
  }

  private alarmTopic(id: string, email: string | undefined): Topic {
    const topic = new Topic(this.scope, id, { enforceSSL: true });
    Validations.of(topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry only alarm names and states, and CloudWatch cannot publish to a topic under the AWS-managed SNS key',
    });
    if (email) topic.addSubscription(new EmailSubscription(email));
    return topic;
  }

  /**
   * Fires when `metric` reaches `threshold` (by default 1) in `datapoints.datapointsToAlarm` of the
   * latest `datapoints.evaluationPeriods` periods (by default 2 of 3); a period without data is no trouble.
   * Its description starts with its severity, which the notification shows.
   */
  add(
    id: string,
    description: string,
    metric: IMetric,
    threshold = 1,
    datapoints = DEFAULT_DATAPOINTS,
    severity: Severity = 'critical',
  ): void {
    const alarm = new Alarm(this.alarmScope, id, {
      alarmDescription: `[${severity}] ${description}`,
      metric,
      threshold,
      ...datapoints,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const action = new SnsAction(severity === 'critical' ? this.topic : this.warningTopic);
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
  }
}

/**
 * A site nearing or over its budget: budget_usd_used_pct (the tightest window's share used, reported
 * at each paid call under the service dimension) reaches 80% or 100% for any site.
 */
export function budgetAlarms(scope: Construct, alarms: Alarms): void {
  const used = new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: 'budget_usd_used_pct',
    dimensionsMap: { service: SERVICE_NAME },
    statistic: 'Maximum',
    period: Duration.minutes(5),
  });
  // A site's share used only grows within a window: one datapoint over the line is the whole story.
  // A site's budget is the site's business: the operator hears of it as a warning, not a page.
  alarms.add(
    'BudgetUsed80Alarm',
    'A site has used 80% of its daily or monthly budget',
    used,
    80,
    ONE_DATAPOINT,
    'warning',
  );
  alarms.add(
    'BudgetUsed100Alarm',
    'A site has used all of its daily or monthly budget: its paid calls are refused (402 budget_exceeded)',
    used,
    100,
    ONE_DATAPOINT,
    'warning',
  );
}

/**
 * A provider down: paid calls refused because its breaker is open (provider_calls_refused, under the
 * service dimension), in 2 of 3 minutes: the breaker stayed open while callers kept coming.
 */
export function breakerAlarm(alarms: Alarms): void {
  alarms.add(
    'ProviderBreakerOpenAlarm',
    "A paid provider's circuit breaker is open: its calls answer 503 provider_unavailable (logs: 'a provider breaker opened')",
    new Metric({
      namespace: METRICS_NAMESPACE,
      metricName: 'provider_calls_refused',
      dimensionsMap: { service: SERVICE_NAME },
      statistic: 'Sum',
      period: Duration.minutes(1),
    }),
    // The service refuses at once and recovers by itself when the provider does (docs/runbook.md).
    1,
    DEFAULT_DATAPOINTS,
    'warning',
  );
}

/**
 * The daily schedule's work stopped short of the deployment's daily cap (scheduled_work_stopped, under
 * the service dimension): monitoring and rank checks are skipped until the next day's schedule, so
 * that the sites' own calls keep their share of the cap. One datapoint is the whole story.
 */
export function scheduleStoppedAlarm(alarms: Alarms): void {
  alarms.add(
    'ScheduleStoppedAlarm',
    "The daily schedule's work stopped before the deployment's daily budget (-c globalDailyBudgetUsd): monitoring and rank checks wait for the next day's schedule (logs: 'the daily schedule's work stopped')",
    new Metric({
      namespace: METRICS_NAMESPACE,
      metricName: 'scheduled_work_stopped',
      dimensionsMap: { service: SERVICE_NAME },
      statistic: 'Sum',
      period: Duration.minutes(5),
    }),
    1,
    ONE_DATAPOINT,
    'warning',
  );
}

const FIVE_MINUTES = Duration.minutes(5);

/**
 * When errors mean something: in a five-minute period at least `minErrors` and at least `share` of the
 * calls. At 10,000 sites one error a period is the noise of thousands of calls (a caller that hung up,
 * a message retried); a function that fails one call in a hundred, five times or more, is not.
 */
export const ERROR_RATE = { share: 0.01, minErrors: 5 } as const;

/** 1 in a period where `errors` reach `minErrors` and `share` of `calls`, else 0: an alarm's metric at threshold 1. */
function errorRate(errors: IMetric, calls: IMetric, minErrors: number, label: string): MathExpression {
  return new MathExpression({
    expression: `IF(FILL(errors, 0) >= ${minErrors} AND FILL(errors, 0) >= ${ERROR_RATE.share} * FILL(calls, 0), 1, 0)`,
    usingMetrics: { errors, calls },
    period: FIVE_MINUTES,
    label,
  });
}

/**
 * The functions each of whose invocations is a whole run: the daily schedule's one failure is a day of
 * monitoring and rank checks lost, so it alarms on one.
 */
const WHOLE_RUNS: ReadonlySet<string> = new Set(['monitor-schedule']);

/** A function failing: an error rate with a minimum count ({@link ERROR_RATE}), or any error of a {@link WHOLE_RUNS} function. */
export function functionErrorAlarm(alarms: Alarms, name: string, id: string, fn: IFunction): void {
  const wholeRun = WHOLE_RUNS.has(name);
  const errors = fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' });
  alarms.add(
    `${id}ErrorAlarm`,
    wholeRun
      ? `The ${name} function failed (an exception, a timeout or a crash): its run is lost`
      : `The ${name} function failed ${ERROR_RATE.minErrors} or more calls and ${ERROR_RATE.share * 100}% of them in 5 minutes (exceptions it did not answer, timeouts or crashes)`,
    errorRate(
      errors,
      fn.metricInvocations({ period: FIVE_MINUTES, statistic: 'Sum' }),
      wholeRun ? 1 : ERROR_RATE.minErrors,
      'failing',
    ),
    1,
    wholeRun ? ONE_DATAPOINT : DEFAULT_DATAPOINTS,
  );
}

/**
 * The p99 a route group's callers may see (its function's duration) before someone looks. A route that
 * only reads and writes the table answers in tens of milliseconds: 1 s is a table or a cold start gone
 * wrong. A paid tool waits for DataForSEO, which stops a call by 20 s: a p99 there is calls at their
 * limit. `research` waits for its job (up to waitMsMax) and `mcp` for the tool it runs: 2 s past that
 * they are at the 28.5 s where a route answers 503.
 */
export function p99LatencyMs(fn: FunctionName): number {
  if (fn === 'research' || fn === 'mcp') return SERVICE_LIMITS.waitMsMax + 2_000;
  if (PAID_TOOLS.some((tool) => toolFunction(tool) === fn)) return PROVIDER_TIMEOUTS.dataforseoCallMs;
  return 1_000;
}

/**
 * The API's alarms: its 5xx answers as an error rate with a minimum count, and per route group (the
 * routes one function serves) its p99 latency over {@link p99LatencyMs}, a warning: slow is not failing.
 */
export function apiAlarms(alarms: Alarms, api: HttpApi, functions: ReadonlyMap<FunctionName, IFunction>): void {
  alarms.add(
    'ApiServerErrorAlarm',
    `The API answered 5xx to ${ERROR_RATE.minErrors} or more requests and ${ERROR_RATE.share * 100}% of them in 5 minutes: internal errors, or functions that failed or timed out`,
    errorRate(
      api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' }),
      api.metricCount({ period: FIVE_MINUTES, statistic: 'Sum' }),
      ERROR_RATE.minErrors,
      '5xx',
    ),
  );
  for (const [name, fn] of functions) {
    const threshold = p99LatencyMs(name);
    alarms.add(
      `${pascal(name)}LatencyAlarm`,
      `The routes of the ${name} function answered in ${threshold / 1000} s or more at p99 (its Duration)`,
      fn.metricDuration({ period: FIVE_MINUTES, statistic: 'p99' }),
      threshold,
      DEFAULT_DATAPOINTS,
      'warning',
    );
  }
}

/**
 * Five-minute periods a queue must have messages waiting and none deleted before it is stalled: enough to
 * outlast a failed delivery's return (the visibility timeout), then one period to take it and one to
 * delete it. A queue's age or depth is no alarm: at 10,000 sites the daily plan queues hours of work
 * by design, and it drains.
 */
export const stalledPeriods = (worker: WorkerName): number => Math.ceil(visibilityTimeoutSeconds(worker) / 300) + 2;

/** A queue that stopped draining: messages waiting through each period and none deleted, for {@link stalledPeriods}. */
export function queueStalledAlarm(alarms: Alarms, worker: WorkerName, id: string, queue: IQueue): void {
  const periods = stalledPeriods(worker);
  alarms.add(
    `${id}QueueStalledAlarm`,
    `${worker} messages have waited for ${periods * 5} minutes and none was deleted: its worker fails every message, or is stopped`,
    new MathExpression({
      expression: 'IF(FILL(waiting, 0) > 0 AND FILL(deleted, 0) == 0, 1, 0)',
      usingMetrics: {
        waiting: queue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Minimum' }),
        deleted: queue.metricNumberOfMessagesDeleted({ period: FIVE_MINUTES, statistic: 'Sum' }),
      },
      period: FIVE_MINUTES,
      label: 'stalled',
    }),
    1,
    { evaluationPeriods: periods, datapointsToAlarm: periods },
  );
}
