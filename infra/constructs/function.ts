import { Bug } from '@cm/core';
import { join } from 'node:path';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { queueUrlEnvName, type WorkerName } from '@cm/contract';
import { TABLE } from '@cm/store';
import { TABLE_ACTIONS, type FunctionAccess } from '../access';
import { profiledModel } from '../bedrock-model';
import { bundlingOf, entryOf, ROOT, RUNTIME, type FunctionId } from '../bundling';
import { memoryOf } from '../memory';
import { functionErrorAlarm, type Alarms } from './alarms';
import { pascal } from './ids';

export interface ServiceFunctionProps {
  timeout: Duration;
  access: FunctionAccess;
  table: ITable;
  queues: Record<WorkerName, Queue>;
  alarms: Alarms;
  /** Where its log group is made: the stack's nested stack of log groups, which keeps them out of its 500 resources. */
  logs: Construct;
  /** Its reserved concurrency (concurrency.ts): a cap, and a floor; none: it shares the account's unreserved pool. */
  reservedConcurrency?: number;
}

/** A function's log group, named so that the runbook can name it: `/aws/lambda/<stack>/<function>`. */
export const logGroupName = (stackName: string, name: string): string => `/aws/lambda/${stackName}/${name}`;

/** Makes one of the stack's functions, with the stack's table, queues and alarms. */
export type FunctionFactory = (name: FunctionId, timeout: Duration) => NodejsFunction;

/** What the stack made for `name` (a function, or its integration): it makes one for every name, so a miss is a bug. */
export function made<K extends string, V>(byName: ReadonlyMap<K, V>, name: K): V {
  const value = byName.get(name);
  if (value === undefined) throw new Bug(`Nothing was made for ${name}`);
  return value;
}

/**
 * One function: its own role (no managed policies: it may write its own log group and nothing else
 * until granted `access`), bundled on its own, traced, with an alarm on its errors.
 */
export function serviceFunction(scope: Construct, name: FunctionId, props: ServiceFunctionProps): NodejsFunction {
  const { access, table, queues } = props;
  const id = pascal(name);
  const logGroup = new LogGroup(props.logs, `${id}Logs`, {
    logGroupName: logGroupName(Stack.of(scope).stackName, name),
    retention: RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const role = new Role(scope, `${id}FunctionRole`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  logGroup.grantWrite(role);
  const sendsTo = access.sendsTo ?? [];
  const fn = new NodejsFunction(scope, `${id}Function`, {
    entry: entryOf(name),
    handler: 'handler',
    projectRoot: ROOT,
    depsLockFilePath: join(ROOT, 'package-lock.json'),
    runtime: RUNTIME,
    architecture: Architecture.ARM_64,
    memorySize: memoryOf(name),
    timeout: props.timeout,
    reservedConcurrentExecutions: props.reservedConcurrency,
    role,
    logGroup,
    loggingFormat: LoggingFormat.JSON,
    // Lambda's own segments only: no tracing SDK in the bundles.
    tracing: Tracing.ACTIVE,
    environment: {
      TABLE_NAME: table.tableName,
      NODE_OPTIONS: '--enable-source-maps',
      ...Object.fromEntries(sendsTo.map((q) => [queueUrlEnvName(q), queues[q].queueUrl])),
    },
    bundling: bundlingOf(name),
  });
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'X-Ray PutTraceSegments and PutTelemetryRecords have no resource-level permissions',
  });
  if (access.table !== 'none') {
    role.addToPolicy(new PolicyStatement({ actions: [...TABLE_ACTIONS[access.table]], resources: [table.tableArn] }));
    // Listings query the indexes by name; no index wildcard.
    role.addToPolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: TABLE.indexes.map((index) => `${table.tableArn}/index/${index.name}`),
      }),
    );
  }
  if (sendsTo.length > 0) {
    role.addToPolicy(
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: sendsTo.map((q) => queues[q].queueArn) }),
    );
  }
  functionErrorAlarm(props.alarms, name, id, fn);
  return fn;
}

/**
 * Lets `fn` invoke `targets` (Lambda Invoke, RequestResponse): InvokeFunction on their unqualified ARNs,
 * no versions or aliases, no wildcard.
 */
export function grantInvoke(fn: NodejsFunction, targets: readonly NodejsFunction[]): void {
  fn.addToRolePolicy(
    new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: targets.map((target) => target.functionArn) }),
  );
}

/**
 * Lets `fn` call Converse on `modelId`, named in `BEDROCK_MODEL_ID`, and no more: the foundation model
 * in this region or, for an inference profile, the profile and the model in the regions it routes to.
 */
export function grantBedrock(fn: NodejsFunction, modelId: string): void {
  const stack = Stack.of(fn);
  fn.addEnvironment('BEDROCK_MODEL_ID', modelId);
  const model = profiledModel(modelId);
  if (model === undefined) {
    const foundationModel = stack.formatArn({
      service: 'bedrock',
      account: '',
      resource: 'foundation-model',
      resourceName: modelId,
    });
    fn.addToRolePolicy(new PolicyStatement({ actions: ['bedrock:InvokeModel'], resources: [foundationModel] }));
    return;
  }
  const resources = [
    stack.formatArn({ service: 'bedrock', resource: 'inference-profile', resourceName: modelId }),
    stack.formatArn({
      service: 'bedrock',
      region: '*',
      account: '',
      resource: 'foundation-model',
      resourceName: model,
    }),
  ];
  fn.addToRolePolicy(new PolicyStatement({ actions: ['bedrock:InvokeModel'], resources }));
  if (!fn.role) throw new Bug(`${fn.node.id} has no role: serviceFunction gives each its own`);
  Validations.of(fn.role).acknowledge({
    // How cdk-nag names the region wildcard.
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/${model}]`,
    reason: 'A cross-region inference profile routes each call to its model in a region the profile picks',
  });
}
