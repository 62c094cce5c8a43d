import { NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as z from 'zod/mini';
import { FUNCTION_ENTRIES, type FunctionId } from '../../infra/bundling';
import { checkedApp } from '../../infra/checks';
import { serviceStacks } from '../../infra/service-stacks';
import { pascal } from '../../infra/stack';

/*
 * What the bill reads from the synthesized templates (both stacks, as `cdk synth` makes them, without
 * bundling): each function's memory and architecture, and the resources billed by the month.
 */

export interface StackShape {
  functions: Record<FunctionId, { memoryMb: number; arm: boolean }>;
  /** The table is on-demand, with point-in-time recovery. */
  onDemand: boolean;
  pitr: boolean;
  /** AWS Backup's rules: days each backup is kept, and how many a month are taken. */
  backups: { keepDays: number; perMonth: number }[];
  webAcls: { rules: number }[];
  /** The metrics the alarms read (a metric-math alarm is billed per metric). */
  alarmMetrics: number;
  dashboards: number;
  /** Custom metrics the alarms read (the service's own namespace): a lower bound of the ones it emits. */
  customMetrics: number;
  secrets: number;
}

/** The template's resources, and the properties of each kind the bill reads. */
const Resources = z.record(z.string(), z.object({ Type: z.string(), Properties: z.optional(z.unknown()) }));
const LambdaFunction = z.object({
  MemorySize: z.optional(z.number()),
  Architectures: z.optional(z.array(z.string())),
});
const Table = z.object({
  BillingMode: z.optional(z.string()),
  PointInTimeRecoverySpecification: z.optional(z.object({ PointInTimeRecoveryEnabled: z.optional(z.boolean()) })),
});
const BackupPlan = z.object({
  BackupPlan: z.object({
    BackupPlanRule: z.array(
      z.object({ Lifecycle: z.object({ DeleteAfterDays: z.number() }), ScheduleExpression: z.string() }),
    ),
  }),
});
const WebAcl = z.object({ Rules: z.optional(z.array(z.unknown())) });
const Alarm = z.object({
  Namespace: z.optional(z.string()),
  MetricName: z.optional(z.string()),
  Dimensions: z.optional(z.unknown()),
  Metrics: z.optional(z.array(z.object({ MetricStat: z.optional(z.unknown()) }))),
});

/** The backups a month a cron expression takes: daily, weekly (a day of the week), or one on a day of the month. */
const backupsPerMonth = (cron: string) =>
  /^cron\(\S+ \S+ \* /.test(cron) ? 30 : /^cron\(\S+ \S+ \? \* [A-Z]{3} /.test(cron) ? 30 / 7 : 1;

export function stackShape(): StackShape {
  const app = checkedApp({ context: { 'aws:cdk:bundling-stacks': [] } });
  const { edge, service } = serviceStacks(app, { account: '123456789012', region: 'us-east-1' });
  // A stack's resources and its nested stacks' (the service's alarms, log groups and API integrations).
  const resourcesOf = (stack: Stack) =>
    [stack, ...stack.node.findAll().filter((c) => NestedStack.isNestedStack(c))].flatMap((s) =>
      Object.entries(Resources.parse(Template.fromStack(s).toJSON().Resources)),
    );
  const resources = [...resourcesOf(edge), ...resourcesOf(service)];
  const ofType = <T>(type: string, schema: z.ZodMiniType<T>): T[] =>
    resources.filter(([, r]) => r.Type === type).map(([, r]) => schema.parse(r.Properties ?? {}));
  const functions = Object.fromEntries(
    FUNCTION_ENTRIES.map((id) => {
      const found = resources.find(
        ([logicalId, r]) => r.Type === 'AWS::Lambda::Function' && logicalId.startsWith(`${pascal(id)}Function`),
      );
      if (!found) throw new Error(`The template has no function ${id}`);
      const props = LambdaFunction.parse(found[1].Properties);
      return [id, { memoryMb: props.MemorySize ?? 128, arm: (props.Architectures ?? []).includes('arm64') }];
    }),
  ) as StackShape['functions'];
  const [table] = ofType('AWS::DynamoDB::Table', Table);
  const alarms = ofType('AWS::CloudWatch::Alarm', Alarm);
  const customMetrics = new Set(
    alarms
      .filter((a) => a.Namespace !== undefined && !a.Namespace.startsWith('AWS/'))
      .map((a) => `${a.Namespace}/${a.MetricName}/${JSON.stringify(a.Dimensions ?? [])}`),
  );
  return {
    functions,
    onDemand: table?.BillingMode === 'PAY_PER_REQUEST',
    pitr: table?.PointInTimeRecoverySpecification?.PointInTimeRecoveryEnabled === true,
    backups: ofType('AWS::Backup::BackupPlan', BackupPlan).flatMap((plan) =>
      plan.BackupPlan.BackupPlanRule.map((rule) => ({
        keepDays: rule.Lifecycle.DeleteAfterDays,
        perMonth: backupsPerMonth(rule.ScheduleExpression),
      })),
    ),
    webAcls: ofType('AWS::WAFv2::WebACL', WebAcl).map((acl) => ({ rules: (acl.Rules ?? []).length })),
    // A metric-math alarm is billed per metric it reads.
    alarmMetrics: alarms.reduce((sum, a) => sum + (a.Metrics ? a.Metrics.filter((m) => m.MetricStat).length : 1), 0),
    dashboards: ofType('AWS::CloudWatch::Dashboard', z.unknown()).length,
    customMetrics: customMetrics.size,
    secrets: ofType('AWS::SecretsManager::Secret', z.unknown()).length,
  };
}
