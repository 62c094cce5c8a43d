import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '@cm/runtime';

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
 * (or pass `-c alarmEmail=…`, which subscribes to both).
 */
export class Alarms {
  /** The critical alarms' topic. */
  readonly topic: Topic;
  readonly warningTopic: Topic;

  constructor(
    private readonly scope: Construct,
    email?: string,
  ) {
    this.topic = this.alarmTopic('AlarmTopic', email);
    this.warningTopic = this.alarmTopic('WarningTopic', email);
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
    const alarm = new Alarm(this.scope, id, {
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
