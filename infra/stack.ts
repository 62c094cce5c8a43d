import { join } from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { FUNCTIONS, ROUTES, type FunctionName } from '@cm/contract';
import { TABLE } from '@cm/store';

const ROOT = join(__dirname, '..');

/** What each function may do to the table: no more than its routes need. */
const TABLE_ACCESS: Record<FunctionName, 'none' | 'read' | 'readWrite'> = {
  discovery: 'none',
  publish: 'readWrite',
  read: 'read',
  'question-parts': 'readWrite',
  visitor: 'read',
};

const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());

/** The service: one DynamoDB table, one HTTP API, one Lambda function per group of routes in the route table. */
export class ContentApiStack extends Stack {
  readonly functions = new Map<FunctionName, NodejsFunction>();

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

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
        projectionType: ProjectionType.INCLUDE,
        nonKeyAttributes: [...TABLE.listingAttributes],
      });
    }

    for (const fn of FUNCTIONS) {
      const lambda = new NodejsFunction(this, `${pascal(fn)}Function`, {
        entry: join(ROOT, 'functions', fn, 'handler.ts'),
        handler: 'handler',
        projectRoot: ROOT,
        depsLockFilePath: join(ROOT, 'package-lock.json'),
        runtime: Runtime.NODEJS_22_X,
        architecture: Architecture.ARM_64,
        memorySize: 512,
        // API Gateway gives an integration 30 s at most.
        timeout: Duration.seconds(29),
        environment: { TABLE_NAME: table.tableName, NODE_OPTIONS: '--enable-source-maps' },
        logGroup: new LogGroup(this, `${pascal(fn)}Logs`, {
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
      if (TABLE_ACCESS[fn] === 'read') table.grantReadData(lambda);
      if (TABLE_ACCESS[fn] === 'readWrite') table.grantReadWriteData(lambda);
      this.functions.set(fn, lambda);
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
