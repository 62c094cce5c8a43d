import { Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';

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
      reason: 'Alarm notifications carry only alarm names and states, and CloudWatch cannot publish to a topic under the AWS-managed SNS key',
    });
    if (email) this.topic.addSubscription(new EmailSubscription(email));
  }

  /** Fires when `metric` reaches 1 in a period; a period without data is no trouble. */
  add(id: string, description: string, metric: IMetric): void {
    new Alarm(this.scope, id, {
      alarmDescription: description,
      metric,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(new SnsAction(this.topic));
  }
}
