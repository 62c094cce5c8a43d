import { join } from 'node:path';
import { ArnFormat, CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Alarm, ComparisonOperator, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Tracing } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { FUNCTIONS, ROUTES, WORKERS, type FunctionName, type WorkerName } from '@cm/contract';
import { DEFAULT_BEDROCK_MODEL } from '@cm/runtime/src/config';
import { TABLE } from '@cm/store';
import { BUNDLING, entryOf, ROOT, RUNTIME } from './bundling';

/** What each function may do to the table: no more than its routes need. */
const TABLE_ACCESS: Record<FunctionName, TableAccess> = {
  discovery: 'none',
  publish: 'readWrite',
  read: 'read',
  'question-parts': 'readWrite',
  visitor: 'read',
  notify: 'readWrite',
  tools: 'read',
  usage: 'read',
  jobs: 'read',
  research: 'readWrite',
  recall: 'read',
  'get-keywords': 'readWrite',
  'serp-landscape': 'readWrite',
  'serp-keyword-refresh': 'readWrite',
  // Live lookups are written to the usage ledger.
  'serp-backlinks': 'readWrite',
  // Deleting a row (DeleteItem): db_delete, and taking back a competitor row that lost its place under the cap.
  'add-competitor': 'readWriteDelete',
  'db-select': 'read',
  'db-insert': 'readWriteDelete',
  'db-delete': 'readWriteDelete',
};

/**
 * The item actions of each access level: no scans, no streams, no table administration. Writers
 * remove items in batches (BatchWriteItem); only deleting a row takes DeleteItem.
 */
const READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
const WRITE = [...READ, 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'];
const TABLE_ACTIONS = { none: [], read: READ, readWrite: WRITE, readWriteDelete: [...WRITE, 'dynamodb:DeleteItem'] } as const;
type TableAccess = keyof typeof TABLE_ACTIONS;

/** Functions that call the paid data providers, and so read their credentials (research: keywords mode). */
const PROVIDER_FUNCTIONS: ReadonlySet<FunctionName> = new Set(['get-keywords', 'research', 'serp-landscape', 'serp-keyword-refresh', 'serp-backlinks']);

/** The queues each function sends to. */
const SENDS_TO: Partial<Record<FunctionName | `${WorkerName}-worker` | 'monitor-schedule', WorkerName[]>> = {
  publish: ['relink'],
  notify: ['relink'],
  research: ['research'],
  // analyze queues its keywords' research.
  'serp-landscape': ['research'],
  'relink-worker': ['relink'],
  // A job without a place under the cap is queued again to wait for one.
  'research-worker': ['research'],
  // The first monitoring run of a new competitor, at once.
  'add-competitor': ['monitor'],
  // The daily run of every site's monitoring.
  'monitor-schedule': ['monitor'],
};

/** Worker time limits; a queue hides a message for six times that while a worker has it (AWS's advice). */
const WORKER_TIMEOUT: Record<WorkerName, Duration> = {
  relink: Duration.seconds(60),
  // Web research takes 30 to 60 s; its place under the cap is leased for five minutes.
  research: Duration.seconds(150),
  // Six backlink calls per domain, a batch of domains at a time.
  monitor: Duration.seconds(120),
};
/** Messages per worker invocation: relink steps are small; a research job is slow and runs alone; a few domains' monitoring. */
const BATCH_SIZE: Record<WorkerName, number> = { relink: 10, research: 1, monitor: 5 };
/** Deliveries before a message moves to the dead-letter queue. */
const MAX_RECEIVE_COUNT = 5;

/** A function's name in construct ids: `serp-landscape` → `SerpLandscape`. */
export const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());

/** Requests per second across the API, steady and in a burst, unless the deployment says otherwise. */
export const DEFAULT_THROTTLE = { rateLimit: 100, burstLimit: 200 } as const;

export interface ContentApiStackProps extends StackProps {
  /** Name or ARN of a Secrets Manager secret `{"login", "password"}` for DataForSEO. */
  dataforseoSecret?: string;
  /** Name or ARN of a Secrets Manager secret `{"api_key"}` for Tavily; without it, web research uses the sandbox. */
  tavilySecret?: string;
  /** The Bedrock model (or cross-region inference profile) id that synthesizes research findings. */
  bedrockModelId?: string;
  /** Stage throttling of the HTTP API; defaults to {@link DEFAULT_THROTTLE}. */
  throttle?: { rateLimit?: number; burstLimit?: number };
  /** An address to email when an alarm fires; without it, subscribe to the `AlarmTopic` output yourself. */
  alarmEmail?: string;
}

/**
 * Reading a secret given by complete ARN, or by name (Secrets Manager adds six random characters to
 * a name's ARN): GetSecretValue and nothing else. It must be under the account's default key.
 */
function readSecret(fn: NodejsFunction, nameOrArn: string): PolicyStatement {
  const resource = nameOrArn.startsWith('arn:')
    ? nameOrArn
    : Stack.of(fn).formatArn({ service: 'secretsmanager', resource: 'secret', resourceName: `${nameOrArn}-??????`, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
  return new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [resource] });
}

/** Cross-region inference profiles carry a geography prefix (`us.anthropic…`) before the model id. */
const INFERENCE_PROFILE = /^(us|eu|apac|us-gov|global)\.(.+)$/;

/**
 * What Converse on `modelId` needs, and no more: the foundation model in this region or, for an
 * inference profile, the profile and the model in the regions the profile routes to (`anyRegionModel`).
 */
function bedrockInvoke(stack: Stack, modelId: string): { statement: PolicyStatement; anyRegionModel?: string } {
  const profile = INFERENCE_PROFILE.exec(modelId);
  if (!profile) {
    const model = stack.formatArn({ service: 'bedrock', account: '', resource: 'foundation-model', resourceName: modelId });
    return { statement: new PolicyStatement({ actions: ['bedrock:InvokeModel'], resources: [model] }) };
  }
  const resources = [
    stack.formatArn({ service: 'bedrock', resource: 'inference-profile', resourceName: modelId }),
    stack.formatArn({ service: 'bedrock', region: '*', account: '', resource: 'foundation-model', resourceName: profile[2] }),
  ];
  return {
    statement: new PolicyStatement({ actions: ['bedrock:InvokeModel'], resources }),
    // How cdk-nag names the region wildcard.
    anyRegionModel: `arn:<AWS::Partition>:bedrock:*::foundation-model/${profile[2]}`,
  };
}

/** One JSON line per request: HTTP API's own variables, no headers or bodies (keys stay out of logs). */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    requestTime: '$context.requestTime',
    routeKey: '$context.routeKey',
    path: '$context.path',
    status: '$context.status',
    responseLength: '$context.responseLength',
    latencyMs: '$context.responseLatency',
    integrationLatencyMs: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
    error: '$context.error.message',
  }),
);

/**
 * The service: one DynamoDB table, one HTTP API, one Lambda function per group of routes in the route
 * table, and a queue (with a dead-letter queue and its alarm) and worker function per worker.
 */
export class ContentApiStack extends Stack {
  readonly functions = new Map<FunctionName, NodejsFunction>();
  readonly workers = new Map<WorkerName, NodejsFunction>();
  readonly monitorSchedule: NodejsFunction;

  constructor(scope: Construct, id: string, props: ContentApiStackProps = {}) {
    super(scope, id, props);

    // Provider credentials live in Secrets Manager; without a secret the tools use the sandbox provider.
    const { dataforseoSecret, tavilySecret } = props;
    const bedrockModelId = props.bedrockModelId ?? DEFAULT_BEDROCK_MODEL;

    const table = new Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE.ttlAttribute,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of TABLE.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        ...(index.projection === 'all'
          ? { projectionType: ProjectionType.ALL }
          : { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...TABLE.listingAttributes] }),
      });
    }

    // Every alarm notifies one topic; subscribe to it (or pass `-c alarmEmail=…`).
    const alarmTopic = new Topic(this, 'AlarmTopic', { enforceSSL: true });
    Validations.of(alarmTopic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason: 'Alarm notifications carry only alarm names and states, and CloudWatch cannot publish to a topic under the AWS-managed SNS key',
    });
    if (props.alarmEmail) alarmTopic.addSubscription(new EmailSubscription(props.alarmEmail));
    const alarm = (id: string, description: string, metric: IMetric) =>
      new Alarm(this, id, {
        alarmDescription: description,
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(new SnsAction(alarmTopic));

    const queues = new Map<WorkerName, Queue>();
    for (const worker of WORKERS) {
      const deadLetters = new Queue(this, `${pascal(worker)}DeadLetterQueue`, {
        retentionPeriod: Duration.days(14),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      alarm(
        `${pascal(worker)}DeadLetterAlarm`,
        `${worker} messages failed every attempt and wait in the dead-letter queue`,
        deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      );
      queues.set(
        worker,
        new Queue(this, `${pascal(worker)}Queue`, {
          visibilityTimeout: Duration.seconds(WORKER_TIMEOUT[worker].toSeconds() * 6),
          deadLetterQueue: { queue: deadLetters, maxReceiveCount: MAX_RECEIVE_COUNT },
          encryption: QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
        }),
      );
    }

    /**
     * One function: its own role (no managed policies: it may write its own log group and nothing else
     * until granted), bundled on its own, traced, with an alarm on its errors.
     */
    const lambda = (id: string, timeout: Duration, access: { table: TableAccess; sendsTo?: WorkerName[] }) => {
      const name = pascal(id);
      const logGroup = new LogGroup(this, `${name}Logs`, { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
      const role = new Role(this, `${name}FunctionRole`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
      logGroup.grantWrite(role);
      const sendsTo = access.sendsTo ?? [];
      const fn = new NodejsFunction(this, `${name}Function`, {
        entry: entryOf(id),
        handler: 'handler',
        projectRoot: ROOT,
        depsLockFilePath: join(ROOT, 'package-lock.json'),
        runtime: RUNTIME,
        architecture: Architecture.ARM_64,
        memorySize: 512,
        timeout,
        role,
        logGroup,
        loggingFormat: LoggingFormat.JSON,
        // Lambda's own segments only: no tracing SDK in the bundles.
        tracing: Tracing.ACTIVE,
        environment: {
          TABLE_NAME: table.tableName,
          NODE_OPTIONS: '--enable-source-maps',
          ...Object.fromEntries(sendsTo.map((q) => [`${q.toUpperCase()}_QUEUE_URL`, queues.get(q)!.queueUrl])),
        },
        bundling: BUNDLING,
      });
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray PutTraceSegments and PutTelemetryRecords have no resource-level permissions',
      });
      if (access.table !== 'none') {
        role.addToPolicy(new PolicyStatement({ actions: [...TABLE_ACTIONS[access.table]], resources: [table.tableArn] }));
        // Listings query the indexes by name; no index wildcard.
        role.addToPolicy(
          new PolicyStatement({ actions: ['dynamodb:Query'], resources: TABLE.indexes.map((index) => `${table.tableArn}/index/${index.name}`) }),
        );
      }
      if (sendsTo.length > 0) {
        role.addToPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: sendsTo.map((q) => queues.get(q)!.queueArn) }));
      }
      alarm(`${name}ErrorAlarm`, `The ${id} function failed (an exception it did not answer, a timeout or a crash)`, fn.metricErrors({ period: Duration.minutes(5) }));
      return fn;
    };

    for (const fn of FUNCTIONS) {
      // API Gateway gives an integration 30 s at most.
      const handler = lambda(fn, Duration.seconds(29), { table: TABLE_ACCESS[fn], sendsTo: SENDS_TO[fn] });
      if (dataforseoSecret && PROVIDER_FUNCTIONS.has(fn)) {
        handler.addToRolePolicy(readSecret(handler, dataforseoSecret));
        handler.addEnvironment('DATAFORSEO_SECRET', dataforseoSecret);
      }
      this.functions.set(fn, handler);
    }
    for (const worker of WORKERS) {
      const handler = lambda(`${worker}-worker`, WORKER_TIMEOUT[worker], { table: 'readWrite', sendsTo: SENDS_TO[`${worker}-worker`] });
      handler.addEventSource(
        new SqsEventSource(queues.get(worker)!, { batchSize: BATCH_SIZE[worker], reportBatchItemFailures: true }),
      );
      this.workers.set(worker, handler);
    }
    const monitorWorker = this.workers.get('monitor')!;
    if (dataforseoSecret) {
      monitorWorker.addToRolePolicy(readSecret(monitorWorker, dataforseoSecret));
      monitorWorker.addEnvironment('DATAFORSEO_SECRET', dataforseoSecret);
    }
    // Daily, EventBridge queues one monitoring run per site domain and active competitor.
    const monitorSchedule = lambda('monitor-schedule', Duration.minutes(5), { table: 'read', sendsTo: SENDS_TO['monitor-schedule'] });
    new Rule(this, 'MonitorSchedule', {
      description: 'Daily backlink monitoring of every site and its active competitors',
      schedule: Schedule.rate(Duration.days(1)),
      targets: [new LambdaFunction(monitorSchedule, { retryAttempts: 2 })],
    });
    this.monitorSchedule = monitorSchedule;

    // Only the research worker searches, fetches and synthesizes.
    const researchWorker = this.workers.get('research')!;
    researchWorker.addEnvironment('BEDROCK_MODEL_ID', bedrockModelId);
    const invoke = bedrockInvoke(this, bedrockModelId);
    researchWorker.addToRolePolicy(invoke.statement);
    if (invoke.anyRegionModel) {
      Validations.of(researchWorker.role!).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${invoke.anyRegionModel}]`,
        reason: 'A cross-region inference profile routes each call to its model in a region the profile picks',
      });
    }
    if (tavilySecret) {
      researchWorker.addToRolePolicy(readSecret(researchWorker, tavilySecret));
      researchWorker.addEnvironment('TAVILY_SECRET', tavilySecret);
      // The research tool only names it (it may not read it), so a job it queues says which provider runs it.
      this.functions.get('research')!.addEnvironment('TAVILY_SECRET', tavilySecret);
    }

    const integrations = new Map(
      FUNCTIONS.map((fn) => [fn, new HttpLambdaIntegration(`${pascal(fn)}Integration`, this.functions.get(fn)!)]),
    );
    // No CORS: the callers are servers (the editor service, the sites), and visitor pages are plain links.
    // Requests no route matches reach the discovery function, which answers 404 in the API's error shape.
    const api = new HttpApi(this, 'Api', { defaultIntegration: integrations.get('discovery'), createDefaultStage: false });
    for (const route of ROUTES) {
      api.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration: integrations.get(route.fn)! });
    }
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason: 'Each function checks the X-API-Key against the stored key hashes and scopes the request to its site; visitor pages and discovery are public by design',
    });
    const throttle = {
      rateLimit: props.throttle?.rateLimit ?? DEFAULT_THROTTLE.rateLimit,
      burstLimit: props.throttle?.burstLimit ?? DEFAULT_THROTTLE.burstLimit,
    };
    for (const [key, value] of Object.entries(throttle)) {
      if (!Number.isInteger(value) || value <= 0) throw new Error(`API throttle ${key} must be a positive whole number, not ${value}`);
    }
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    new HttpStage(this, 'ApiStage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle,
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
    });
    alarm('ApiServerErrorAlarm', 'The API answered 5xx: internal errors, or a function that failed or timed out', api.metricServerError({ period: Duration.minutes(5) }));

    new CfnOutput(this, 'ApiUrl', { value: api.apiEndpoint, description: 'publish_url and platform_url' });
    new CfnOutput(this, 'TableName', { value: table.tableName, description: 'TABLE_NAME for `npm run sites`' });
    new CfnOutput(this, 'AlarmTopicArn', { value: alarmTopic.topicArn, description: 'Subscribe to be told when an alarm fires' });
  }
}
