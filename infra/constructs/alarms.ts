import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '@cm/runtime';

/** Every alarm notifies one topic; subscribe to it (or pass `-c alarmEmail=…`). */
export class Alarms {
  readonly topic: Topic;

  constructor(
    private readonly scope: Construct,
    email?: string,
  ) {
    this.topic = new Topic(scope, 'AlarmTopic', { enforceSSL: true });
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry only alarm names and states, and CloudWatch cannot publish to a topic under the AWS-managed SNS key',
    });
    if (email) this.topic.addSubscription(new EmailSubscription(email));
  }

  /**
   * Fires when `metric` reaches `threshold` (by default 1) in a period, or, with `datapoints`, in that
   * many of the last that many periods (a level that lasts, not one reading); a period without data is no
   * trouble.
   */
  add(id: string, description: string, metric: IMetric, threshold = 1, datapoints = 1): void {
    new Alarm(this.scope, id, {
      alarmDescription: description,
      metric,
      threshold,
      evaluationPeriods: datapoints,
      datapointsToAlarm: datapoints,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(new SnsAction(this.topic));
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
  alarms.add('BudgetUsed80Alarm', 'A site has used 80% of its daily or monthly budget', used, 80);
  alarms.add(
    'BudgetUsed100Alarm',
    'A site has used all of its daily or monthly budget: its paid calls are refused (402 budget_exceeded)',
    used,
    100,
  );
}
