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
 * What AWS Backup keeps, each a full copy of the table (docs/runbook.md#restoring-the-table says why).
 * Point-in-time recovery already restores any second of the last 35 days; what it lacks is a copy
 * apart from the table (PITR turned off, or the table deleted, takes it along) and anything older.
 * So: one a week kept 5 weeks (a copy apart, at most a week old, over PITR's whole window) and one a
 * month kept a year: 17 copies at most, not 35 daily and 12 monthly ones (47).
 */
export const BACKUPS = {
  weekly: { keptDays: 35, copies: 5 },
  monthly: { keptDays: 365, copies: 12 },
} as const;

/**
 * AWS Backup beside point-in-time recovery, in a vault that outlives the stack (retained): weekly on
 * Sunday and monthly on the 1st, at 05:00 UTC, kept as {@link BACKUPS} says.
 */
export function tableBackups(scope: Construct, table: ITable): BackupPlan {
  const vault = new BackupVault(scope, 'BackupVault', { removalPolicy: RemovalPolicy.RETAIN });
  const plan = new BackupPlan(scope, 'BackupPlan', {
    backupVault: vault,
    backupPlanRules: [
      new BackupPlanRule({
        ruleName: 'weekly',
        scheduleExpression: Schedule.cron({ minute: '0', hour: '5', weekDay: 'SUN' }),
        deleteAfter: Duration.days(BACKUPS.weekly.keptDays),
      }),
      new BackupPlanRule({
        ruleName: 'monthly',
        scheduleExpression: Schedule.cron({ minute: '0', hour: '5', day: '1' }),
        deleteAfter: Duration.days(BACKUPS.monthly.keptDays),
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
