import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { BackupPlan, BackupPlanRule, BackupResource, BackupVault } from 'aws-cdk-lib/aws-backup';
import { AttributeType, BillingMode, ProjectionType, Table, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Schedule } from 'aws-cdk-lib/aws-events';
import type { Construct } from 'constructs';
import { TABLE } from '@cm/store';

/**
 * The one DynamoDB table, keyed and indexed as `@cm/store` lays it out. It outlives the stack (retained), and
 * deletion protection refuses a delete by anyone, console and API included, until it is turned off. With
 * `existingTableName` the stack makes none and uses that table: one restored from a backup or point in
 * time (a restore always makes a new table), or the retained one after the stack was deleted
 * (docs/runbook.md).
 */
export function contentTable(scope: Construct, existingTableName?: string): ITable {
  if (existingTableName !== undefined) return Table.fromTableName(scope, 'Table', existingTableName);
  const table = new Table(scope, 'Table', {
    partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
    sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: TABLE.ttlAttribute,
    removalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: true,
  });
  for (const index of TABLE.indexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: { name: index.sortKey, type: AttributeType.STRING },
      ...(index.projection === 'all'
        ? { projectionType: ProjectionType.ALL }
        : { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection] }),
    });
  }
  return table;
}

/**
 * AWS Backup beside point-in-time recovery: PITR restores any second of the last 35 days, but its
 * backups go with the table's own history; Backup's are kept apart, in a vault that outlives the stack
 * (retained), a month-end one for a year. Daily at 05:00 UTC, kept 35 days; monthly, kept 365.
 */
export function tableBackups(scope: Construct, table: ITable): BackupPlan {
  const vault = new BackupVault(scope, 'BackupVault', { removalPolicy: RemovalPolicy.RETAIN });
  const plan = new BackupPlan(scope, 'BackupPlan', {
    backupVault: vault,
    backupPlanRules: [
      new BackupPlanRule({
        ruleName: 'daily',
        scheduleExpression: Schedule.cron({ minute: '0', hour: '5' }),
        deleteAfter: Duration.days(35),
      }),
      new BackupPlanRule({
        ruleName: 'monthly',
        scheduleExpression: Schedule.cron({ minute: '0', hour: '5', day: '1' }),
        deleteAfter: Duration.days(365),
      }),
    ],
  });
  const selection = plan.addSelection('Table', { resources: [BackupResource.fromDynamoDbTable(table)] });
  Validations.of(selection).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
    reason: "AWS Backup's own service role policy, the one its documentation gives the role that takes the backups",
  });
  return plan;
}
