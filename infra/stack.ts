import { join } from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { FUNCTIONS, ROUTES, WORKERS, type FunctionName, type WorkerName } from '@cm/contract';
import { DEFAULT_BEDROCK_MODEL } from '@cm/runtime/src/config';
import { TABLE } from '@cm/store';

const ROOT = join(__dirname, '..');

/** What each function may do to the table: no more than its routes need. */
const TABLE_ACCESS: Record<FunctionName, 'none' | 'read' | 'readWrite'> = {
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
  'add-competitor': 'readWrite',
  'db-select': 'read',
  'db-insert': 'readWrite',
  'db-delete': 'readWrite',
};

/** Functions that call the paid data providers, and so read their credentials. */
const PROVIDER_FUNCTIONS: ReadonlySet<FunctionName> = new Set(['get-keywords', 'serp-landscape', 'serp-keyword-refresh', 'serp-backlinks']);

/** The queues each function sends to. */
const SENDS_TO: Partial<Record<FunctionName | `${WorkerName}-worker`, WorkerName[]>> = {
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

const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());

export interface ContentApiStackProps extends StackProps {
  /** Name or ARN of a Secrets Manager secret `{"login", "password"}` for DataForSEO. */
  dataforseoSecret?: string;
  /** Name or ARN of a Secrets Manager secret `{"api_key"}` for Tavily; without it, web research uses the sandbox. */
  tavilySecret?: string;
  /** The Bedrock model (or cross-region inference profile) id that synthesizes research findings. */
  bedrockModelId?: string;
}

/** A secret by name or complete ARN. */
const secretRef = (scope: Construct, id: string, nameOrArn: string) =>
  nameOrArn.startsWith('arn:') ? Secret.fromSecretCompleteArn(scope, id, nameOrArn) : Secret.fromSecretNameV2(scope, id, nameOrArn);

/** Cross-region inference profiles carry a geography prefix (`us.anthropic…`) before the model id. */
const INFERENCE_PROFILE = /^(us|eu|apac|us-gov|global)\.(.+)$/;

/**
 * What Converse on `modelId` needs, and no more: the foundation model in this region or, for an
 * inference profile, the profile and the model in the regions the profile routes to.
 */
function bedrockInvoke(stack: Stack, modelId: string): PolicyStatement {
  const profile = INFERENCE_PROFILE.exec(modelId);
  const resources = profile
    ? [
        stack.formatArn({ service: 'bedrock', resource: 'inference-profile', resourceName: modelId }),
        stack.formatArn({ service: 'bedrock', region: '*', account: '', resource: 'foundation-model', resourceName: profile[2] }),
      ]
    : [stack.formatArn({ service: 'bedrock', account: '', resource: 'foundation-model', resourceName: modelId })];
  return new PolicyStatement({ actions: ['bedrock:InvokeModel'], resources });
}

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
    const dataforseoSecret = props.dataforseoSecret ? secretRef(this, 'DataForSeoSecret', props.dataforseoSecret) : undefined;
    const tavilySecret = props.tavilySecret ? secretRef(this, 'TavilySecret', props.tavilySecret) : undefined;
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

    const queues = new Map<WorkerName, Queue>();
    for (const worker of WORKERS) {
      const deadLetters = new Queue(this, `${pascal(worker)}DeadLetterQueue`, {
        retentionPeriod: Duration.days(14),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      new Alarm(this, `${pascal(worker)}DeadLetterAlarm`, {
        alarmDescription: `${worker} messages failed every attempt and wait in the dead-letter queue`,
        metric: deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
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

    const lambda = (id: string, entry: string, timeout: Duration, sendsTo: WorkerName[] = []) => {
      const fn = new NodejsFunction(this, `${pascal(id)}Function`, {
        entry: join(ROOT, 'functions', entry, 'handler.ts'),
        handler: 'handler',
        projectRoot: ROOT,
        depsLockFilePath: join(ROOT, 'package-lock.json'),
        runtime: Runtime.NODEJS_22_X,
        architecture: Architecture.ARM_64,
        memorySize: 512,
        timeout,
        environment: {
          TABLE_NAME: table.tableName,
          NODE_OPTIONS: '--enable-source-maps',
          ...Object.fromEntries(sendsTo.map((q) => [`${q.toUpperCase()}_QUEUE_URL`, queues.get(q)!.queueUrl])),
        },
        logGroup: new LogGroup(this, `${pascal(id)}Logs`, {
          retention: RetentionDays.ONE_MONTH,
          removalPolicy: RemovalPolicy.DESTROY,
        }),
        bundling: {
          minify: true,
          sourceMap: true,
          target: 'node22',
          format: OutputFormat.CJS,
          // The SDK clients are bundled at the lockfile's versions; esbuild keeps only what is imported.
          externalModules: [],
          // Prefer packages' ESM builds so esbuild can drop what a function never imports.
          mainFields: ['module', 'main'],
        },
      });
      for (const q of sendsTo) queues.get(q)!.grantSendMessages(fn);
      return fn;
    };

    for (const fn of FUNCTIONS) {
      // API Gateway gives an integration 30 s at most.
      const handler = lambda(fn, fn, Duration.seconds(29), SENDS_TO[fn]);
      if (TABLE_ACCESS[fn] === 'read') table.grantReadData(handler);
      if (TABLE_ACCESS[fn] === 'readWrite') table.grantReadWriteData(handler);
      if (dataforseoSecret && PROVIDER_FUNCTIONS.has(fn)) {
        dataforseoSecret.grantRead(handler);
        handler.addEnvironment('DATAFORSEO_SECRET', props.dataforseoSecret!);
      }
      this.functions.set(fn, handler);
    }
    for (const worker of WORKERS) {
      const handler = lambda(`${worker}-worker`, `${worker}-worker`, WORKER_TIMEOUT[worker], SENDS_TO[`${worker}-worker`]);
      table.grantReadWriteData(handler);
      handler.addEventSource(
        new SqsEventSource(queues.get(worker)!, { batchSize: BATCH_SIZE[worker], reportBatchItemFailures: true }),
      );
      this.workers.set(worker, handler);
    }
    const monitorWorker = this.workers.get('monitor')!;
    if (dataforseoSecret) {
      dataforseoSecret.grantRead(monitorWorker);
      monitorWorker.addEnvironment('DATAFORSEO_SECRET', props.dataforseoSecret!);
    }
    // Daily, EventBridge queues one monitoring run per site domain and active competitor.
    const monitorSchedule = lambda('monitor-schedule', 'monitor-schedule', Duration.minutes(5), ['monitor']);
    table.grantReadData(monitorSchedule);
    new Rule(this, 'MonitorSchedule', {
      description: 'Daily backlink monitoring of every site and its active competitors',
      schedule: Schedule.rate(Duration.days(1)),
      targets: [new LambdaFunction(monitorSchedule, { retryAttempts: 2 })],
    });
    this.monitorSchedule = monitorSchedule;

    // Only the research worker searches, fetches and synthesizes.
    const researchWorker = this.workers.get('research')!;
    researchWorker.addEnvironment('BEDROCK_MODEL_ID', bedrockModelId);
    researchWorker.addToRolePolicy(bedrockInvoke(this, bedrockModelId));
    if (tavilySecret) {
      tavilySecret.grantRead(researchWorker);
      researchWorker.addEnvironment('TAVILY_SECRET', props.tavilySecret!);
    }

    const integrations = new Map(
      FUNCTIONS.map((fn) => [fn, new HttpLambdaIntegration(`${pascal(fn)}Integration`, this.functions.get(fn)!)]),
    );
    // Requests no route matches reach the discovery function, which answers 404 in the API's error shape.
    const api = new HttpApi(this, 'Api', { defaultIntegration: integrations.get('discovery') });
    for (const route of ROUTES) {
      api.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration: integrations.get(route.fn)! });
    }

    new CfnOutput(this, 'ApiUrl', { value: api.apiEndpoint, description: 'publish_url and platform_url' });
    new CfnOutput(this, 'TableName', { value: table.tableName, description: 'TABLE_NAME for `npm run sites`' });
  }
}
