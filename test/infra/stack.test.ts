import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Stack, type App } from 'aws-cdk-lib';
import { HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpUrlIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import {
  FUNCTIONS,
  functionEnvName,
  MCP_INVOKES,
  MCP_STREAM_TIMEOUT_SECONDS,
  QUEUES,
  ROUTES,
  answersHead,
  toolFunction,
  TOOL_NAMES,
  WORKERS,
} from '@cm/contract';
import { FUNCTION_ENTRIES } from '../../infra/bundling';
import { testApp } from './test-app';
import { memoryOf } from '../../infra/memory';
import { RESERVED_CONCURRENCY } from '../../infra/constructs/concurrency';
import { ContentApiStack, DEFAULT_THROTTLE, pascal } from '../../infra/stack';
import { nestedOutput, nestedTemplate } from './nested';
import { given } from '../helpers/client';

/*
 * The app as `cdk synth` makes it, offline: once through the CDK CLI, with real esbuild bundling (the
 * functions' assets, the dashboard's build hook) and CDK's built-in CloudFormation validation, in a child
 * process that runs beside the stacks below; and in process with cdk-nag, whose tests read templates only
 * and so skip both (./test-app.ts). An unacknowledged cdk-nag finding fails either synth.
 */
const cliOut = mkdtempSync(join(tmpdir(), 'cdk-out-'));
let cliSynth: Promise<void>;
let app: App;
let template: Template;
/** The stack's nested stacks, their parameters read as the main stack's references. */
let alarmsOf: Template;
let integrationsOf: Template;
let stack: ContentApiStack;
beforeAll(() => {
  const root = join(__dirname, '..', '..');
  cliSynth = promisify(execFile)(join(root, 'node_modules/.bin/cdk'), ['synth', '--quiet', '--output', cliOut], {
    cwd: root,
    env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
  }).then(() => undefined);
  // Awaited by the tests that read it; a failure fails them, not the process.
  cliSynth.catch(() => undefined);
  app = testApp();
  stack = new ContentApiStack(app, 'Test');
  template = Template.fromStack(stack);
  alarmsOf = nestedTemplate(stack, 'Alarms');
  integrationsOf = nestedTemplate(stack, 'Integrations');
}, 120_000);
afterAll(() => rmSync(cliOut, { recursive: true, force: true }));

/**
 * How long a test may wait for the CLI's synth: a bound on a hang, not a speed goal. It builds every
 * function's bundle, which on a busy machine takes minutes (the default test timeout is 30 s).
 */
const CLI_SYNTH_BOUND_MS = 300_000;

/** The template the CLI synthesized, once it has. */
async function cliTemplate(): Promise<Record<string, any>> {
  await cliSynth;
  return JSON.parse(readFileSync(join(cliOut, 'ContentApi.template.json'), 'utf8')) as Record<string, any>;
}

/** The integration a route's target names: its output of the nested stack `Integrations`, read there. */
function integrationOf(route: Record<string, any>): [string, Record<string, any>] {
  const [prefix, getAtt] = route.Properties.Target['Fn::Join'][1];
  expect(prefix).toBe('integrations/');
  const { Ref: id } = nestedOutput(stack, 'Integrations', getAtt) as { Ref: string };
  return [id, given(integrationsOf.findResources('AWS::ApiGatewayV2::Integration')[id], `the integration ${id}`)];
}

/** Every IAM statement of the template: the policies' and the roles' inline ones. */
const statementsOf = (t: Template) => [
  ...Object.values(t.findResources('AWS::IAM::Policy')).flatMap((p) => p.Properties.PolicyDocument.Statement),
  ...Object.values(t.findResources('AWS::IAM::Role')).flatMap((r) =>
    (r.Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement),
  ),
];
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/**
 * No wildcard action anywhere, and `Resource: "*"` only for X-Ray's trace writes (acknowledged to
 * cdk-nag on every role, so this is what keeps any other statement from widening unseen).
 */
function expectNoWildcards(t: Template) {
  const statements = statementsOf(t);
  const actions = statements.flatMap((s: any) => asList(s.Action)) as string[];
  expect(actions.filter((a) => a.includes('*'))).toEqual([]);
  const anyResource = statements.filter((s: any) => asList(s.Resource).includes('*'));
  expect(anyResource.length).toBeGreaterThan(0);
  for (const statement of anyResource)
    expect(statement.Action).toEqual(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']);
}

/**
 * What a scheduled function `fn` is given: the EventBridge rules that target it, the actions its role's
 * policies allow (as JSON text) and the queues it may send to (their logical ids, hash apart).
 */
function scheduledAccess(t: Template, fn: string) {
  const rules = Object.values(t.findResources('AWS::Events::Rule')).filter((r) =>
    JSON.stringify(r.Properties.Targets).includes(fn),
  );
  const statements = Object.values(t.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(fn))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
  const sends = statements.filter((s: any) => JSON.stringify(s.Action).includes('sqs:SendMessage'));
  const queues = sends.flatMap((s: any) => JSON.stringify(s.Resource).match(/\w+?Queue(?=[0-9A-F]{8}")/g) ?? []);
  return { rules, actions: JSON.stringify(statements.map((s: any) => s.Action)), queues: [...new Set(queues)].sort() };
}

describe('cdk-nag (AWS Solutions)', () => {
  it('passes on the stack as deployed (and with provider credentials, below)', () => {
    expect(() => app.synth({ force: true })).not.toThrow();
  });

  it('fails the synth on a finding nobody acknowledged', () => {
    const app = testApp();
    // A queue that accepts plain HTTP: AwsSolutions-SQS4.
    new Queue(new Stack(app, 'Careless'), 'Plain');
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
  });
});

describe('CDK stack', () => {
  it('has the table on demand, retained, deletion-protected, with point-in-time recovery, TTL, the listing indexes, the row indexes and the index of live pages', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          Match.objectLike({ IndexName: 'gsi1', Projection: Match.objectLike({ ProjectionType: 'INCLUDE' }) }),
          Match.objectLike({ IndexName: 'gsi2', Projection: Match.objectLike({ ProjectionType: 'INCLUDE' }) }),
          Match.objectLike({ IndexName: 'gsi3', Projection: { ProjectionType: 'ALL' } }),
          Match.objectLike({ IndexName: 'gsi4', Projection: { ProjectionType: 'ALL' } }),
          Match.objectLike({
            IndexName: 'gsi5',
            Projection: Match.objectLike({
              ProjectionType: 'INCLUDE',
              NonKeyAttributes: Match.arrayWith(['visible_at']),
            }),
          }),
          Match.objectLike({
            IndexName: 'gsi6',
            KeySchema: [
              { AttributeName: 'gsi6pk', KeyType: 'HASH' },
              { AttributeName: 'visible_at', KeyType: 'RANGE' },
            ],
          }),
        ],
      }),
    });
  });

  it('has one Node.js 24 arm64 function, traced, logging JSON, per function of the route table, per worker, the monitoring schedule, the research sweep, the page schedule and the MCP stream, bundled, with the table name', () => {
    const functions = template.findResources('AWS::Lambda::Function', {
      Properties: {
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogFormat: 'JSON', LogGroup: Match.anyValue() },
      },
    });
    expect(Object.keys(functions)).toHaveLength(FUNCTIONS.length + WORKERS.length + 4);
    expect(Object.keys(template.findResources('AWS::Lambda::Function'))).toHaveLength(
      FUNCTIONS.length + WORKERS.length + 4,
    );
    for (const fn of Object.values(functions)) {
      expect(fn.Properties.Environment.Variables.TABLE_NAME).toEqual({ Ref: expect.stringMatching(/^Table/) });
      expect(fn.Properties.Code.S3Key).toMatch(/\.zip$/);
    }
  });

  it("sizes each function's memory from the bench's measurements (infra/memory.ts), not one size for all", () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const sizes = Object.fromEntries(
      FUNCTION_ENTRIES.map((name) => {
        const found = Object.entries(functions).find(([id]) => id.startsWith(`${pascal(name)}Function`));
        return [name, found?.[1].Properties.MemorySize];
      }),
    );
    expect(sizes).toEqual(Object.fromEntries(FUNCTION_ENTRIES.map((name) => [name, memoryOf(name)])));
    // A caller waits on the routes (but the dashboard's static files); nobody on the schedules; the
    // research worker reads pages with a whole vCPU.
    expect(new Set(FUNCTIONS.filter((name) => name !== 'dashboard').map((name) => sizes[name]))).toEqual(
      new Set([512]),
    );
    expect(sizes['monitor-schedule']).toBe(256);
    expect(sizes['research-worker']).toBe(1769);
  });

  it('routes every route of the route table on the HTTP API (GET routes with HEAD too, but the MCP stream), and the rest to the discovery function', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((r) => r.Properties.RouteKey);
    const heads = ROUTES.filter(answersHead).map((r) => `HEAD ${r.path}`);
    expect(heads).toContain('HEAD /sites/{site_id}/articles/{slug}');
    expect(routes.sort()).toEqual([...ROUTES.map((r) => `${r.method} ${r.path}`), ...heads, '$default'].sort());
  });

  it('gives each function one integration and one invoke permission for the API, not one per route, in the nested stack Integrations: the stack stays well under 500 resources', () => {
    const permissions = Object.values(integrationsOf.findResources('AWS::Lambda::Permission'));
    expect(permissions).toHaveLength(FUNCTIONS.length);
    for (const p of permissions) {
      expect(p.Properties).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' });
      // Any stage, method and path of this API: the API named as in the main stack.
      expect(JSON.stringify(p.Properties.SourceArn)).toMatch(/"Ref":"Api[0-9A-F]{8}"\},"\/\*\/\*\/\*"/);
    }
    const integrations = Object.values(integrationsOf.findResources('AWS::ApiGatewayV2::Integration'));
    expect(integrations).toHaveLength(FUNCTIONS.length);
    // Each function's, as HttpLambdaIntegration made them in the main stack before.
    const functionIds = Object.keys(template.findResources('AWS::Lambda::Function'));
    for (const i of integrations) {
      expect(i.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      expect(functionIds).toContain(i.Properties.IntegrationUri['Fn::GetAtt'][0]);
    }
    expect(new Set(integrations.map((i) => i.Properties.IntegrationUri['Fn::GetAtt'][0])).size).toBe(FUNCTIONS.length);
    // Neither is the main stack's; CloudFormation refuses a stack of more than 500 (with a permission per route this one had 516).
    template.resourceCountIs('AWS::ApiGatewayV2::Integration', 0);
    expect(
      Object.keys(
        template.findResources('AWS::Lambda::Permission', { Properties: { Principal: 'apigateway.amazonaws.com' } }),
      ),
    ).toEqual([]);
    expect(Object.keys(template.toJSON().Resources).length).toBeLessThan(450);
  });

  it('keeps each route under the logical ID HttpApi.addRoutes gave it (a new one is a new route, whose key the old one holds during the deploy), each to its function', () => {
    // The routes as HttpApi made them before they named the nested stack's integrations.
    const before = new Stack();
    const integration = new HttpUrlIntegration('Integration', 'https://example.com');
    const scratch = new HttpApi(before, 'Api', { defaultIntegration: integration, createDefaultStage: false });
    for (const route of ROUTES) {
      const methods = answersHead(route) ? [HttpMethod.GET, HttpMethod.HEAD] : [HttpMethod[route.method]];
      scratch.addRoutes({ path: route.path, methods, integration });
    }
    const idsByKey = (routes: Record<string, any>) =>
      Object.fromEntries(Object.entries(routes).map(([id, r]) => [r.Properties.RouteKey, id]));
    const routes = template.findResources('AWS::ApiGatewayV2::Route');
    expect(idsByKey(routes)).toEqual(idsByKey(Template.fromStack(before).findResources('AWS::ApiGatewayV2::Route')));
    for (const route of ROUTES) {
      const id = given(idsByKey(routes)[`${route.method} ${route.path}`], 'the route');
      const [, fnIntegration] = integrationOf(given(routes[id], 'the route'));
      expect(fnIntegration.Properties.IntegrationUri['Fn::GetAtt'][0]).toMatch(
        new RegExp(`^${pascal(route.fn)}Function[0-9A-F]{8}$`),
      );
    }
    // What no route matches: the discovery function.
    const fallback = given(routes[given(idsByKey(routes).$default, 'the $default route')], 'the $default route');
    expect(integrationOf(fallback)[1].Properties.IntegrationUri['Fn::GetAtt'][0]).toMatch(
      /^DiscoveryFunction[0-9A-F]{8}$/,
    );
  });

  it('grants table access by need: read-only for discovery (deep health), reads and visitor pages, DeleteItem only where a row or a tracked scope is deleted', () => {
    const policies = template.findResources('AWS::IAM::Policy');
    const actionsOf = (role: string) =>
      Object.values(policies)
        .filter((p) => JSON.stringify(p.Properties.Roles).includes(role))
        .flatMap((p) => p.Properties.PolicyDocument.Statement.flatMap((s: { Action: string | string[] }) => s.Action));
    for (const role of ['DiscoveryFunction', 'ReadFunction', 'VisitorFunction', 'ToolsFunction', 'DbSelectFunction']) {
      const actions = actionsOf(role);
      expect(actions).toContain('dynamodb:Query');
      expect(actions.filter((a: string) => a.startsWith('dynamodb:') && /Put|Update|Delete|Write/.test(a))).toEqual([]);
    }
    // usage writes the site's budget limits (PUT /v1/budget).
    for (const role of [
      'PublishFunction',
      'GetKeywordsFunction',
      'SerpKeywordRefreshFunction',
      'DbInsertFunction',
      'UsageFunction',
    ]) {
      expect(actionsOf(role)).toEqual(expect.arrayContaining(['dynamodb:UpdateItem', 'dynamodb:BatchWriteItem']));
    }
    // Only the functions that delete a row may DeleteItem; the rest remove items in batches.
    const deleters = Object.values(policies)
      .filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes('dynamodb:DeleteItem'))
      .map((p) => given(JSON.stringify(p.Properties.Roles).match(/"(\w+?)FunctionRole/), 'the match')[1])
      .sort();
    // The authorization server deletes the codes and tokens that are used up or revoked.
    // The IndexNow worker deletes each URL it sent, on the condition that it did not change meanwhile.
    // The usage function deletes a site's Search Console connection (DELETE /v1/search-console).
    expect(deleters).toEqual([
      'AddCompetitor',
      'DbDelete',
      'DbInsert',
      'IndexnowWorker',
      'Oauth',
      'TrackRankings',
      'Usage',
    ]);
  });

  it("lets the oauth function alone read the authorization server's secret, at run time: its environment names it", () => {
    const [secretId] = Object.keys(template.findResources('AWS::SecretsManager::Secret')).filter((id) =>
      id.startsWith('OAuthSecret'),
    );
    const secretUsers = Object.entries(template.findResources('AWS::Lambda::Function'))
      .filter(([, f]) =>
        JSON.stringify(f.Properties.Environment?.Variables ?? {}).includes(given(secretId, 'the secretId')),
      )
      .map(([id, f]) => ({ id, variables: f.Properties.Environment.Variables }));
    expect(secretUsers).toEqual([
      {
        id: expect.stringMatching(/^OauthFunction/),
        variables: expect.objectContaining({ OAUTH_SECRET_ARN: { Ref: secretId } }),
      },
    ]);
    expect(given(secretUsers[0], 'the secretUsers[0]').variables.OAUTH_SECRET).toBeUndefined();
    const readers = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p.Properties.PolicyDocument).includes(`"Ref":"${secretId}"`),
    );
    expect(readers.map((p) => JSON.stringify(p.Properties.Roles))).toEqual([expect.stringContaining('OauthFunction')]);
  });

  it(
    'serves the dashboard from its own function, which may touch no table or queue, with the built app beside its handler',
    async () => {
      const functions = template.findResources('AWS::Lambda::Function');
      const [id, dashboard] = given(
        Object.entries(functions).find(([id]) => id.startsWith('DashboardFunction')),
        'the find',
      );
      const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).filter((r) =>
        String(r.Properties.RouteKey).includes(' /dashboard'),
      );
      expect(routes.map((r) => r.Properties.RouteKey).sort()).toEqual([
        'GET /dashboard',
        'GET /dashboard/assets/{file}',
        'HEAD /dashboard',
        'HEAD /dashboard/assets/{file}',
      ]);
      expect(routes.every((r) => JSON.stringify(integrationOf(r)[1].Properties.IntegrationUri).includes(id))).toBe(
        true,
      );
      const statements = Object.values(template.findResources('AWS::IAM::Policy'))
        .filter((p) => JSON.stringify(p.Properties.Roles).includes('DashboardFunctionRole'))
        .flatMap((p) => p.Properties.PolicyDocument.Statement.flatMap((s: { Action: string | string[] }) => s.Action));
      expect(statements.filter((a: string) => !/^(logs|xray):/.test(a))).toEqual([]);
      expect(Object.keys(dashboard.Properties.Environment.Variables)).not.toContain('DASHBOARD_DIR');
      // The asset Lambda is given, as the CLI bundled it: index.js and, from the bundling hook, the app the handler reads.
      const bundled = given(
        Object.entries<{ Type: string; Properties: { Code: { S3Key: string } } }>((await cliTemplate()).Resources).find(
          ([id, r]) => id.startsWith('DashboardFunction') && r.Type === 'AWS::Lambda::Function',
        ),
        'the find',
      )[1];
      const asset = join(cliOut, `asset.${bundled.Properties.Code.S3Key.replace(/\.zip$/, '')}`);
      expect(readdirSync(asset).sort()).toEqual(['dashboard', 'index.js', 'index.js.map']);
      // Stack traces map to file and line, but the sources stay out of the map, which Node parses at every cold start.
      const map = JSON.parse(readFileSync(join(asset, 'index.js.map'), 'utf8')) as {
        sources: string[];
        sourcesContent?: unknown;
      };
      expect(map.sources.filter((source) => source.endsWith('functions/dashboard/handler.ts'))).toHaveLength(1);
      expect(map.sourcesContent).toBeUndefined();
      const html = readFileSync(join(asset, 'dashboard', 'index.html'), 'utf8');
      const files = readdirSync(join(asset, 'dashboard', 'assets'));
      expect(files.length).toBe(3);
      for (const file of files) expect(html).toContain(`/dashboard/assets/${file}`);
    },
    CLI_SYNTH_BOUND_MS,
  );

  it('gives each research tool its own function behind its own route', () => {
    const integrations = Object.values(template.findResources('AWS::ApiGatewayV2::Route'))
      .filter((r) => String(r.Properties.RouteKey).startsWith('POST /v1/tools/'))
      .map((r) => JSON.stringify(r.Properties.Target));
    expect(new Set(integrations).size).toBe(integrations.length);
    expect(integrations).toHaveLength(TOOL_NAMES.length + 1); // and POST /v1/tools/{name}, the unknown_tool answer
  });

  it('serves POST, GET and DELETE /mcp from the mcp function and the streaming endpoint from mcp-stream, which may read the table, keep large results and approval questions, and invoke only the functions they run', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const logicalIdOf = (name: string) =>
      given(
        Object.keys(functions).find((id) => id.startsWith(`${pascal(name)}Function`) && !id.includes('Role')),
        'the find',
      );
    const mcpId = logicalIdOf('mcp');
    const streamId = logicalIdOf('mcp-stream');
    expect(streamId).not.toBe(mcpId);
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).filter((r) =>
      String(r.Properties.RouteKey).endsWith(' /mcp'),
    );
    expect(routes.map((r) => r.Properties.RouteKey).sort()).toEqual(['DELETE /mcp', 'GET /mcp', 'POST /mcp']);
    for (const route of routes)
      expect(JSON.stringify(integrationOf(route)[1].Properties.IntegrationUri)).toContain(mcpId);
    // The streaming endpoint: its own function URL, streaming; the handler checks the key (auth NONE at the URL).
    const urls = Object.values(template.findResources('AWS::Lambda::Url'));
    expect(urls).toHaveLength(1);
    expect(given(urls[0], 'the urls[0]').Properties).toMatchObject({
      AuthType: 'NONE',
      InvokeMode: 'RESPONSE_STREAM',
      TargetFunctionArn: { 'Fn::GetAtt': [streamId, 'Arn'] },
    });
    expect(given(functions[streamId], 'the functions[streamId]').Properties.Timeout).toBe(MCP_STREAM_TIMEOUT_SECONDS);
    // Anyone may reach the URL (the handler checks the key), and only through the URL: both permissions Lambda asks for.
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission'))
      .map((p) => p.Properties)
      .filter((p) => JSON.stringify(p.FunctionName).includes(streamId));
    expect(permissions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Action: 'lambda:InvokeFunctionUrl', Principal: '*', FunctionUrlAuthType: 'NONE' }),
        expect.objectContaining({ Action: 'lambda:InvokeFunction', Principal: '*', InvokedViaFunctionUrl: true }),
      ]),
    );
    // Its links are the API's, not its own host's.
    expect(
      given(functions[streamId], 'the functions[streamId]').Properties.Environment.Variables.PUBLIC_BASE_URL,
    ).toBeDefined();
    template.hasOutput('McpStreamUrl', {
      Value: {
        'Fn::Join': [
          '',
          [{ 'Fn::GetAtt': [Match.stringLikeRegexp('^McpStreamFunctionFunctionUrl'), 'FunctionUrl'] }, 'mcp'],
        ],
      },
    });
    for (const [id, role] of [
      [mcpId, 'McpFunctionRole'],
      [streamId, 'McpStreamFunctionRole'],
    ] as const) {
      // Each target is named in the environment and granted InvokeFunction on its own ARN: no wildcard, nothing else.
      const env = given(functions[id], 'the functions[id]').Properties.Environment.Variables;
      for (const target of MCP_INVOKES) expect(env[functionEnvName(target)]).toEqual({ Ref: logicalIdOf(target) });
      const statements = Object.values(template.findResources('AWS::IAM::Policy'))
        .filter((p) => JSON.stringify(p.Properties.Roles).includes(role))
        .flatMap((p) => p.Properties.PolicyDocument.Statement);
      const invokes = statements.filter((s: any) => asList(s.Action).includes('lambda:InvokeFunction'));
      expect(invokes).toHaveLength(1);
      expect(asList(invokes[0].Action)).toEqual(['lambda:InvokeFunction']);
      expect(invokes[0].Resource).toEqual(
        MCP_INVOKES.map((target) => ({ 'Fn::GetAtt': [logicalIdOf(target), 'Arn'] })),
      );
      const dynamo = statements
        .flatMap((s: any) => asList(s.Action))
        .filter((a: any) => String(a).startsWith('dynamodb:'));
      // Each writes the large results it keeps for their pages (docs/api.md#mcp-results), in batches;
      // the streaming one also approval questions and answers (docs/api.md#the-streaming-endpoint).
      expect(dynamo.filter((a: any) => /Put|Update|Delete|Write/.test(a))).toEqual(
        role === 'McpFunctionRole'
          ? ['dynamodb:BatchWriteItem']
          : ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'],
      );
      expect(
        statements.flatMap((s: any) => asList(s.Action)).filter((a: any) => /^(sqs|secretsmanager|bedrock):/.test(a)),
      ).toEqual([]);
    }
    expect(MCP_INVOKES).toEqual(expect.arrayContaining([...TOOL_NAMES.map(toolFunction), 'jobs', 'usage', 'read']));
    // No other function may invoke a function.
    const invokers = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p.Properties.PolicyDocument).includes('lambda:InvokeFunction'),
    );
    expect(
      invokers
        .map((p) => given(JSON.stringify(p.Properties.Roles).match(/"(\w+?)FunctionRole/), 'the match')[1])
        .sort(),
    ).toEqual(['Mcp', 'McpStream']);
  });

  it('gives every worker queue a dead-letter queue with an alarm, and its worker partial batch failures', () => {
    const queues = template.findResources('AWS::SQS::Queue');
    const withDlq = Object.entries(queues).filter(([, q]) => q.Properties.RedrivePolicy);
    expect(withDlq).toHaveLength(WORKERS.length);
    // Each as its settings say: 5 deliveries, 8 for rank-collect (a task not ready yet is delivered again).
    expect(withDlq.map(([, q]) => q.Properties.RedrivePolicy.maxReceiveCount).sort()).toEqual(
      WORKERS.map((worker) => QUEUES[worker].maxReceiveCount).sort(),
    );
    for (const [, queue] of withDlq) {
      const dlq = queue.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0];
      const alarms = Object.values(alarmsOf.findResources('AWS::CloudWatch::Alarm')).filter((a) =>
        JSON.stringify(a.Properties.Dimensions ?? []).includes(dlq),
      );
      expect(alarms).toHaveLength(1);
      expect(given(alarms[0], 'the alarms[0]').Properties).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
      });
    }
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', WORKERS.length);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 1,
      FunctionName: { Ref: Match.stringLikeRegexp('^RelinkWorkerFunction') },
    });
  });

  it('keeps the logical IDs of the table and every queue, so a deploy never replaces them (and their data)', () => {
    const idsOf = (type: string) => Object.keys(template.findResources(type)).sort();
    expect(idsOf('AWS::DynamoDB::Table')).toEqual(['TableCD117FA1']);
    expect(idsOf('AWS::SQS::Queue')).toEqual([
      'BudgetWarningDeadLetterQueueC50D4ADC',
      'BudgetWarningQueueBF817DDF',
      'IndexnowDeadLetterQueue4CEBE6E7',
      'IndexnowQueue3E13242C',
      'MonitorDeadLetterQueue1DC0DA18',
      'MonitorPlanDeadLetterQueueB7356F1F',
      'MonitorPlanQueue6F1B3261',
      'MonitorQueueF31BE3C7',
      'RankCollectDeadLetterQueue40F439B5',
      'RankCollectQueue82C65DCA',
      'RankDeadLetterQueue2FBCBF1C',
      'RankQueueD8EB3DB4',
      'RelinkDeadLetterQueue3C97E5EB',
      'RelinkPagesDeadLetterQueueFFE58EA6',
      'RelinkPagesQueue3C65937E',
      'RelinkQueue35AE8468',
      'ResearchDeadLetterQueueE047D79C',
      'ResearchQueueD591F41B',
      'ScheduleDeadLetterQueue0D6B48D2',
      'SearchConsoleDeadLetterQueue2EF44A96',
      'SearchConsoleQueueBF1B17D1',
    ]);
  });

  it("keeps a message 14 days (SQS's most) on every queue, source or dead-letter, so one outlives a stopped worker", () => {
    const queues = Object.values(template.findResources('AWS::SQS::Queue'));
    expect(queues).toHaveLength(2 * WORKERS.length + 1);
    for (const queue of queues) expect(queue.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
  });

  it("delivers each worker queue as the settings shared with the local stack say: batch size, maximum concurrency, deliveries before the dead-letter queue, the worker's time limit", () => {
    const queues = template.findResources('AWS::SQS::Queue');
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    const functions = template.findResources('AWS::Lambda::Function');
    for (const worker of WORKERS) {
      const settings = QUEUES[worker];
      const [queueId, queue] = given(
        Object.entries(queues).find(([id]) => id.startsWith(`${pascal(worker)}Queue`)),
        'the find',
      );
      expect(queue.Properties.RedrivePolicy).toEqual({
        deadLetterTargetArn: {
          'Fn::GetAtt': [expect.stringMatching(new RegExp(`^${pascal(worker)}DeadLetterQueue`)), 'Arn'],
        },
        maxReceiveCount: settings.maxReceiveCount,
      });
      // SQS hides a message six times the worker's time limit while the worker has it (AWS's advice).
      expect(queue.Properties.VisibilityTimeout).toBe(6 * settings.timeoutSeconds);
      const mapping = given(
        mappings.find((m) => JSON.stringify(m.Properties.EventSourceArn).includes(queueId)),
        'the find',
      );
      expect(mapping.Properties.BatchSize).toBe(settings.batchSize);
      expect(mapping.Properties.ScalingConfig).toEqual({ MaximumConcurrency: settings.maxConcurrency });
      const workerFunction = given(
        functions[mapping.Properties.FunctionName.Ref],
        'the functions[mapping.Properties.FunctionNam',
      );
      expect(JSON.stringify(workerFunction.Properties.Role)).toContain(`${pascal(worker)}WorkerFunctionRole`);
      expect(workerFunction.Properties.Timeout).toBe(settings.timeoutSeconds);
    }
  });

  it('lets publish and notify send to the relink queue, the relink worker (only) to the relink-pages queue; research, serp_landscape, the research worker and the sweep to the research queue; add_competitor and the plan worker to the monitor queue; the schedule to the monitor-plan queue; track_rankings, the plan worker and the collect worker to the rank queue, the rank worker (only) to the rank-collect queue; no other function', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const sendersTo = (queue: string) =>
      policies
        .filter((p) =>
          p.Properties.PolicyDocument.Statement.some(
            (s: any) =>
              JSON.stringify(s.Action).includes('sqs:SendMessage') && JSON.stringify(s.Resource).includes(queue),
          ),
        )
        .map((p) => JSON.stringify(p.Properties.Roles));
    const researchSenders = sendersTo('ResearchQueue');
    expect(researchSenders).toHaveLength(4);
    for (const fn of ['"ResearchFunction', 'SerpLandscapeFunction', 'ResearchWorkerFunction', 'ResearchSweepFunction'])
      expect(researchSenders.some((r) => r.includes(fn))).toBe(true);
    const monitorSenders = sendersTo('MonitorQueue');
    expect(monitorSenders).toHaveLength(2);
    for (const fn of ['AddCompetitorFunction', 'MonitorPlanWorkerFunction'])
      expect(monitorSenders.some((r) => r.includes(fn))).toBe(true);
    const rankSenders = sendersTo('RankQueue');
    expect(rankSenders).toHaveLength(3);
    for (const fn of ['TrackRankingsFunction', 'MonitorPlanWorkerFunction', 'RankCollectWorkerFunction'])
      expect(rankSenders.some((r) => r.includes(fn))).toBe(true);
    // The rank worker sends to the collect queue; the collect worker sends a site's run again only when
    // another site's run gave back a check it awaited (each turn needs a give-back: no chain of its own).
    const collectSenders = sendersTo('RankCollectQueue');
    expect(collectSenders).toHaveLength(1);
    expect(collectSenders[0]).toContain('RankWorkerFunction');
    const planSenders = sendersTo('MonitorPlanQueue');
    expect(planSenders).toHaveLength(1);
    expect(planSenders[0]).toContain('MonitorScheduleFunction');
    const senders = sendersTo('RelinkQueue');
    expect(senders).toHaveLength(3);
    for (const fn of ['PublishFunction', 'NotifyFunction', 'PageScheduleFunction'])
      expect(senders.some((r) => r.includes(fn))).toBe(true);
    // The planner sends to the relink-pages queue, whose worker sends nothing: no chain on either queue.
    const pageSenders = sendersTo('RelinkPagesQueue');
    expect(pageSenders).toHaveLength(1);
    expect(pageSenders[0]).toContain('RelinkWorkerFunction');
    const notify = given(
      Object.values(template.findResources('AWS::Lambda::Function')).find((f) =>
        JSON.stringify(f.Properties.Role).includes('NotifyFunction'),
      ),
      'the find',
    );
    expect(notify.Properties.Environment.Variables.RELINK_QUEUE_URL).toEqual({
      Ref: expect.stringMatching(/^RelinkQueue/),
    });
  });

  it('runs one research job per worker invocation, with a time limit past the 30 to 60 s a job takes', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 1,
      FunctionName: { Ref: Match.stringLikeRegexp('^ResearchWorkerFunction') },
    });
    const worker = given(
      Object.values(template.findResources('AWS::Lambda::Function')).find((f) =>
        JSON.stringify(f.Properties.Role).includes('ResearchWorkerFunction'),
      ),
      'the find',
    );
    expect(worker.Properties.Timeout).toBe(150);
  });

  it('lets only the research worker call Bedrock: InvokeModel on the default inference profile and its model, named in its environment', () => {
    const invokers = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((p) =>
      p.Properties.PolicyDocument.Statement.filter((s: any) => JSON.stringify(s.Action).includes('bedrock:')).map(
        (s: any) => ({
          roles: JSON.stringify(p.Properties.Roles),
          statement: s,
        }),
      ),
    );
    expect(invokers).toHaveLength(1);
    expect(given(invokers[0], 'the invokers[0]').roles).toContain('ResearchWorkerFunction');
    expect(given(invokers[0], 'the invokers[0]').statement.Action).toBe('bedrock:InvokeModel');
    const resources = JSON.stringify(given(invokers[0], 'the invokers[0]').statement.Resource);
    expect(resources).toContain(
      ':bedrock:",{"Ref":"AWS::Region"},":",{"Ref":"AWS::AccountId"},":inference-profile/us.anthropic.claude-haiku-4-5-20251001-v1:0',
    );
    expect(resources).toContain(':bedrock:*::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0');
    const worker = given(
      Object.values(template.findResources('AWS::Lambda::Function')).find((f) =>
        JSON.stringify(f.Properties.Role).includes('ResearchWorkerFunction'),
      ),
      'the find',
    );
    expect(worker.Properties.Environment.Variables.BEDROCK_MODEL_ID).toBe(
      'us.anthropic.claude-haiku-4-5-20251001-v1:0',
    );
    expect(worker.Properties.Environment.Variables.TAVILY_SECRET).toBeUndefined();
  });

  it('runs monitoring daily: an EventBridge rule targets the schedule function, which may only read the table and send to the monitor-plan queue, whose worker sends to the monitor queue', () => {
    const { rules, actions, queues } = scheduledAccess(template, 'MonitorScheduleFunction');
    expect(rules).toHaveLength(1);
    expect(given(rules[0], 'the rules[0]').Properties.ScheduleExpression).toBe('cron(10 0 * * ? *)');
    expect(given(rules[0], 'the rules[0]').Properties.Targets[0]).toMatchObject({
      RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 },
      DeadLetterConfig: { Arn: { 'Fn::GetAtt': [expect.stringMatching(/^ScheduleDeadLetterQueue/), 'Arn'] } },
    });
    expect(actions).toContain('sqs:SendMessage');
    expect(actions).toContain('dynamodb:BatchGetItem');
    expect(actions).not.toContain('dynamodb:PutItem');
    expect(queues).toContain('MonitorPlanQueue');
    expect(queues).not.toContain('MonitorQueue');
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FunctionName: { Ref: Match.stringLikeRegexp('^MonitorPlanWorkerFunction') },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FunctionName: { Ref: Match.stringLikeRegexp('^MonitorWorkerFunction') },
    });
  });

  it('sweeps lapsed research jobs every minute: an EventBridge rule targets the sweep function, which may update the table and send to the research queue (the jobs it admits) only', () => {
    const { rules, actions, queues } = scheduledAccess(template, 'ResearchSweepFunction');
    expect(rules).toHaveLength(1);
    expect(given(rules[0], 'the rules[0]').Properties.ScheduleExpression).toBe('rate(1 minute)');
    expect(given(rules[0], 'the rules[0]').Properties.Targets[0]).toMatchObject({
      RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
      DeadLetterConfig: { Arn: { 'Fn::GetAtt': [expect.stringMatching(/^ScheduleDeadLetterQueue/), 'Arn'] } },
    });
    expect(actions).toContain('dynamodb:UpdateItem');
    expect(actions).not.toContain('dynamodb:DeleteItem');
    expect(queues).toEqual(['ResearchQueue']);
  });

  it("applies the pages' scheduled changes every minute: an EventBridge rule targets the page-schedule function, which may update the table and send to the relink and indexnow queues only", () => {
    const { rules, actions, queues } = scheduledAccess(template, 'PageScheduleFunction');
    expect(rules).toHaveLength(1);
    expect(given(rules[0], 'the rule').Properties.ScheduleExpression).toBe('rate(1 minute)');
    expect(given(rules[0], 'the rule').Properties.Targets[0]).toMatchObject({
      RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
    });
    expect(actions).toContain('dynamodb:UpdateItem');
    expect(actions).not.toContain('dynamodb:DeleteItem');
    // Relink's, and IndexNow's for a change it announces.
    expect(queues).toEqual(['IndexnowQueue', 'RelinkQueue']);
  });

  it('backs the table up with AWS Backup apart from point-in-time recovery: weekly kept 35 days, monthly a year, in a retained vault', () => {
    template.hasResource('AWS::Backup::BackupVault', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    template.hasResourceProperties('AWS::Backup::BackupPlan', {
      BackupPlan: {
        BackupPlanRule: [
          Match.objectLike({
            RuleName: 'weekly',
            ScheduleExpression: 'cron(0 5 ? * SUN *)',
            Lifecycle: { DeleteAfterDays: 35 },
          }),
          Match.objectLike({
            RuleName: 'monthly',
            ScheduleExpression: 'cron(0 5 1 * ? *)',
            Lifecycle: { DeleteAfterDays: 365 },
          }),
        ],
      },
    });
    template.hasResourceProperties('AWS::Backup::BackupSelection', {
      BackupSelection: Match.objectLike({
        Resources: [{ 'Fn::GetAtt': [Match.stringLikeRegexp('^Table'), 'Arn'] }],
      }),
    });
  });

  it("has no IAM statement with a wildcard action, no managed policy but AWS Backup's own, and no table scan", () => {
    const statements = statementsOf(template);
    expect(statements.length).toBeGreaterThan(FUNCTIONS.length);
    expectNoWildcards(template);
    const actions = statements.flatMap((s: any) => asList(s.Action)) as string[];
    expect(actions).not.toContain('dynamodb:Scan');
    // The one role with a managed policy is AWS Backup's, which takes the table's backups with the policy AWS gives it.
    const managed = Object.entries(template.findResources('AWS::IAM::Role')).filter(
      ([, role]) => role.Properties.ManagedPolicyArns !== undefined,
    );
    expect(managed.map(([id, role]) => [id, JSON.stringify(role.Properties.ManagedPolicyArns)])).toEqual([
      [expect.stringMatching(/^BackupPlanTableRole/), expect.stringContaining('AWSBackupServiceRolePolicyForBackup')],
    ]);
    // The indexes are named; the table's other wildcard would be `index/*`.
    expect(JSON.stringify(statements)).not.toContain('index/*');
    expect(JSON.stringify(statements)).toContain('/index/gsi1');
  });

  it('gives each function a role of its own that may write only its own log group, kept a month', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    const roles = new Set(functions.map((f) => JSON.stringify(f.Properties.Role)));
    expect(roles.size).toBe(functions.length);
    // The functions' in the nested stack of log groups, named for the runbook; the API's access log here.
    const logs = Template.fromStack(stack.node.findChild('Logs') as Stack).findResources('AWS::Logs::LogGroup');
    expect(Object.keys(logs)).toHaveLength(functions.length);
    expect(Object.keys(template.findResources('AWS::Logs::LogGroup'))).toEqual([
      expect.stringMatching(/^ApiAccessLogs/),
    ]);
    for (const group of [...Object.values(logs), ...Object.values(template.findResources('AWS::Logs::LogGroup'))])
      expect(group.Properties.RetentionInDays).toBe(30);
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    for (const fn of functions) {
      const role = fn.Properties.Role['Fn::GetAtt'][0];
      const group = nestedOutput(stack, 'Logs', fn.Properties.LoggingConfig.LogGroup) as { Ref: string };
      expect(given(logs[group.Ref], 'the logs[group.Ref]').Properties.LogGroupName).toMatch(
        /^\/aws\/lambda\/Test\/[a-z-]+$/,
      );
      const logWrites = policies
        .filter((p) => JSON.stringify(p.Properties.Roles).includes(role))
        .flatMap((p) => p.Properties.PolicyDocument.Statement)
        .filter((s: any) => JSON.stringify(s.Action).includes('logs:'));
      expect(logWrites.map((s: any) => nestedOutput(stack, 'Logs', s.Resource))).toEqual([
        { 'Fn::GetAtt': [group.Ref, 'Arn'] },
      ]);
    }
  });

  it("puts a schedule's undelivered events in a dead-letter queue, encrypted and TLS-only, that only EventBridge's rules may send to, and alarms on one", () => {
    const [queueId, queue] = given(
      Object.entries(template.findResources('AWS::SQS::Queue')).find(([id]) =>
        id.startsWith('ScheduleDeadLetterQueue'),
      ),
      'the find',
    );
    expect(queue.Properties).toMatchObject({ SqsManagedSseEnabled: true });
    const [policy] = Object.values(template.findResources('AWS::SQS::QueuePolicy')).filter((p) =>
      JSON.stringify(p.Properties.Queues).includes(queueId),
    );
    const statements = given(policy, 'the policy').Properties.PolicyDocument.Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    const sends = statements.filter((s: any) => s.Effect === 'Allow');
    expect(sends).toHaveLength(3);
    for (const send of sends) {
      expect(send).toMatchObject({ Action: 'sqs:SendMessage', Principal: { Service: 'events.amazonaws.com' } });
      expect(JSON.stringify(send.Condition.ArnEquals['aws:SourceArn'])).toMatch(
        /MonitorSchedule|ResearchSweep|PageSchedule/,
      );
    }
    const alarms = Object.values(alarmsOf.findResources('AWS::CloudWatch::Alarm')).filter((a) =>
      JSON.stringify(a.Properties.Dimensions ?? []).includes(queueId),
    );
    expect(alarms).toHaveLength(1);
    expect(given(alarms[0], 'the alarms[0]').Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
    });
  });

  it("alarms, through its severity's topic when it fires and when it is OK, on every function's errors, every dead-letter queue (the schedules' too), every queue stalled, the API's 5xx answers and each route group's latency, sites' budgets and the schedule stopping short of the deployment's", () => {
    const alarms = Object.values(alarmsOf.findResources('AWS::CloudWatch::Alarm'));
    const topics = Object.keys(template.findResources('AWS::SNS::Topic')).sort();
    expect(topics).toEqual([expect.stringMatching(/^AlarmTopic/), expect.stringMatching(/^WarningTopic/)]);
    const [critical, warning] = topics;
    // A limit doing its job, a provider down or a site's budget is a warning; the rest page.
    const isWarning = (a: any) =>
      [
        'budget_usd_used_pct',
        'ConcurrentExecutions',
        'provider_calls_refused',
        'scheduled_work_stopped',
        'Duration',
      ].includes(a.Properties.MetricName);
    for (const alarm of alarms) {
      const topic = isWarning(alarm) ? warning : critical;
      expect([alarm.Properties.AlarmName, alarm.Properties.AlarmActions, alarm.Properties.OKActions]).toEqual([
        alarm.Properties.AlarmName,
        [{ Ref: topic }],
        [{ Ref: topic }],
      ]);
      expect(alarm.Properties.AlarmDescription).toMatch(isWarning(alarm) ? /^\[warning\] / : /^\[critical\] /);
    }
    const functions = Object.keys(template.findResources('AWS::Lambda::Function'));
    // Metric math: the metrics an alarm reads.
    const metricsOf = (a: any): any[] =>
      (a.Properties.Metrics ?? []).filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric);
    const errorAlarms = alarms.filter((a) => metricsOf(a).some((m) => m.MetricName === 'Errors'));
    expect(errorAlarms.map((a) => metricsOf(a)[0].Dimensions[0].Value.Ref).sort()).toEqual([...functions].sort());
    expect(alarms.filter((a) => metricsOf(a).some((m) => m.MetricName === '5xx'))).toHaveLength(1);
    const latency = alarms.filter((a) => a.Properties.MetricName === 'Duration');
    expect(latency).toHaveLength(FUNCTIONS.length);
    const stalled = alarms.filter((a) => metricsOf(a).some((m) => m.MetricName === 'NumberOfMessagesDeleted'));
    expect(stalled).toHaveLength(WORKERS.length);
    // Any site at 80% and at 100% of a budget window.
    const budget = alarms.filter((a) => a.Properties.MetricName === 'budget_usd_used_pct');
    expect(budget.map((a) => [a.Properties.Namespace, a.Properties.Statistic, a.Properties.Threshold])).toEqual([
      ['ContentApi', 'Maximum', 80],
      ['ContentApi', 'Maximum', 100],
    ]);
    // The daily schedule stopping short of the deployment's cap (the default one here), at once.
    const stopped = alarms.filter((a) => a.Properties.MetricName === 'scheduled_work_stopped');
    expect(
      stopped.map((a) => [
        a.Properties.Namespace,
        a.Properties.Statistic,
        a.Properties.Threshold,
        a.Properties.EvaluationPeriods,
      ]),
    ).toEqual([['ContentApi', 'Sum', 1, 1]]);
    // And the squeeze's (test/infra/resilience.test.ts): each capped function's concurrency, Lambda's
    // throttles, the table's throttling and an open provider breaker.
    const squeeze = alarms.filter(
      (a) =>
        ['ConcurrentExecutions', 'Throttles', 'provider_calls_refused'].includes(a.Properties.MetricName) ||
        metricsOf(a).some((m) => m.MetricName === 'ReadThrottleEvents'),
    );
    expect(squeeze).toHaveLength(Object.keys(RESERVED_CONCURRENCY).length + 3);
    // Each worker queue's dead letters and stalling, the schedules' dead letters, the API's 5xx.
    expect(alarms).toHaveLength(
      functions.length + 2 * WORKERS.length + 1 + 1 + latency.length + budget.length + stopped.length + squeeze.length,
    );
  });

  it('has one dashboard for the person on call: the API, every function, every queue and its dead letters, the table, the providers and the spend', () => {
    const dashboards = Object.values(alarmsOf.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    // The body is a Fn::Join of text and references: the text, each reference as {Ref:<logical id>}.
    const parts: unknown[] = given(dashboards[0], 'the dashboards[0]').Properties.DashboardBody['Fn::Join'][1];
    const body = parts.map((part: any) => (typeof part === 'string' ? part : `{Ref:${part.Ref}}`)).join('');
    for (const title of [
      'API: requests and errors',
      'API: latency',
      'Functions: errors',
      'Functions: duration p99',
      'Queues: age of the oldest message',
      'Queues: dead letters',
      'Table: throttled requests',
      'Providers: tool calls and refusals',
      'Spend: provider cost',
    ])
      expect([title, body.includes(title)]).toEqual([title, true]);
    // Every function's errors, every worker queue's age, and the service's own metrics.
    for (const fn of Object.keys(template.findResources('AWS::Lambda::Function')))
      expect([fn, body.includes(`{Ref:${fn}}`)]).toEqual([fn, true]);
    for (const worker of WORKERS) expect([worker, body.includes(`"label":"${worker}"`)]).toEqual([worker, true]);
    for (const metric of [
      'tool_calls',
      'provider_cost_usd',
      'provider_calls_refused',
      'budget_usd_used_pct',
      'scheduled_work_stopped',
    ])
      expect([metric, body.includes(`"ContentApi","${metric}"`)]).toEqual([metric, true]);
  });

  it('throttles the API stage, logs its access as JSON, and allows no cross-origin calls', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    const stage = given(Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0], 'the stage').Properties;
    expect(stage).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: {
        ThrottlingRateLimit: DEFAULT_THROTTLE.rateLimit,
        ThrottlingBurstLimit: DEFAULT_THROTTLE.burstLimit,
      },
    });
    const format = JSON.parse(stage.AccessLogSettings.Format);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      routeKey: '$context.routeKey',
    });
    expect(stage.AccessLogSettings.Format).not.toMatch(/header|body|api-key/i);
    const api = given(Object.values(template.findResources('AWS::ApiGatewayV2::Api'))[0], 'the API').Properties;
    expect(api.CorsConfiguration).toBeUndefined();
  });

  it('outputs the API URL and the table name', () => {
    template.hasOutput('ApiUrl', {});
    template.hasOutput('TableName', {});
    template.hasOutput('AlarmTopicArn', {});
  });

  it("has no custom domain by default: the public base URL is the API URL, and each request its own base (but the MCP stream's, which names the API)", () => {
    template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    template.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 0);
    expect(given(template.findOutputs('PublicBaseUrl').PublicBaseUrl, 'the PublicBaseUrl').Value).toEqual(
      given(template.findOutputs('ApiUrl').ApiUrl, 'the ApiUrl').Value,
    );
    expect(Object.keys(template.findOutputs('ApiDomainTarget'))).toEqual([]);
    const based = Object.entries(template.findResources('AWS::Lambda::Function')).filter(
      ([, f]) => 'PUBLIC_BASE_URL' in f.Properties.Environment.Variables,
    );
    expect(based.map(([id]) => id)).toEqual([expect.stringMatching(/^McpStreamFunction/)]);
    expect(given(based[0], 'the based[0]')[1].Properties.Environment.Variables.PUBLIC_BASE_URL).toEqual(
      given(template.findOutputs('ApiUrl').ApiUrl, 'the ApiUrl').Value,
    );
  });
});

const CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f3c1a2b-4d5e-6f70-8192-a3b4c5d6e7f8';

describe('CDK stack with provider credentials and a custom domain', () => {
  let withSecrets: Template;
  let secretsApp: App;
  beforeAll(() => {
    secretsApp = testApp();
    const props = {
      dataforseoSecret: 'content-api/dataforseo',
      tavilySecret: 'content-api/tavily',
      searchConsoleSecret: 'content-api/search-console',
      bedrockModelId: 'us.anthropic.claude-3-5-haiku-20241022-v1:0',
      alarmEmail: 'ops@example.com',
      throttle: { rateLimit: 20 },
      domain: { name: 'api.example.com', certificateArn: CERTIFICATE },
    };
    withSecrets = Template.fromStack(new ContentApiStack(secretsApp, 'WithSecrets', props));
  }, 120_000);

  it("passes cdk-nag: the inference profile's any-region model is the one acknowledged wildcard", () => {
    expect(() => secretsApp.synth({ force: true })).not.toThrow();
  });

  it("has no wildcard action, and no wildcard resource but X-Ray's, with secrets and an inference profile too", () => {
    expectNoWildcards(withSecrets);
  });

  it('serves the API on the custom domain with its certificate (TLS 1.2), and makes it the base URL of visitor pages and an output', () => {
    withSecrets.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: 'api.example.com',
      DomainNameConfigurations: [
        Match.objectLike({ CertificateArn: CERTIFICATE, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' }),
      ],
    });
    withSecrets.hasResourceProperties('AWS::ApiGatewayV2::ApiMapping', {
      DomainName: { Ref: Match.stringLikeRegexp('^ApiDomain') },
      ApiId: { Ref: Match.stringLikeRegexp('^Api') },
      Stage: '$default',
    });
    withSecrets.hasOutput('PublicBaseUrl', { Value: 'https://api.example.com' });
    withSecrets.hasOutput('ApiDomainTarget', {
      Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ApiDomain'), 'RegionalDomainName'] },
    });
    // Every route's function builds visitor-page URLs on it (publish replies, canonical links, find_pages); the workers build none.
    const functions = Object.values(withSecrets.findResources('AWS::Lambda::Function'));
    const based = functions.filter(
      (f) => f.Properties.Environment?.Variables.PUBLIC_BASE_URL === 'https://api.example.com',
    );
    expect(based).toHaveLength(FUNCTIONS.length + 1);
    for (const name of ['VisitorFunction', 'PublishFunction', 'McpFunction', 'McpStreamFunction']) {
      expect(based.some((f) => JSON.stringify(f.Properties.Role).includes(name))).toBe(true);
    }
  });

  it('emails alarms to the given address and takes the given throttle', () => {
    withSecrets.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    withSecrets.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 20, ThrottlingBurstLimit: DEFAULT_THROTTLE.burstLimit },
    });
  });
  const readersOf = (secret: string) =>
    Object.values(withSecrets.findResources('AWS::IAM::Policy'))
      .filter((p) =>
        p.Properties.PolicyDocument.Statement.some(
          (s: any) =>
            s.Action === 'secretsmanager:GetSecretValue' && JSON.stringify(s.Resource).includes(`secret:${secret}`),
        ),
      )
      .map((p) => JSON.stringify(p.Properties.Roles));
  const envs = () =>
    Object.values(withSecrets.findResources('AWS::Lambda::Function')).map(
      (f) => f.Properties.Environment?.Variables ?? {},
    );

  it('lets only the functions that call DataForSEO (research too, for keywords mode) read its secret, named in their environment', () => {
    expect(readersOf('content-api/dataforseo').sort()).toEqual(
      [
        'GetKeywordsFunction',
        'MonitorPlanWorkerFunction',
        'MonitorWorkerFunction',
        'RankCollectWorkerFunction',
        'RankWorkerFunction',
        'ResearchFunction',
        'SerpBacklinksFunction',
        'SerpKeywordRefreshFunction',
        'SerpLandscapeFunction',
      ].map((name) => expect.stringContaining(name)),
    );
    expect(envs().filter((v) => v.DATAFORSEO_SECRET === 'content-api/dataforseo')).toHaveLength(9);
  });

  it("grants a secret's value and nothing more of it, and of a queue only sending (the workers' event sources receive)", () => {
    const statements = statementsOf(withSecrets);
    // The functions read the value; the deploy's check of each secret (provider-secrets.ts) only describes it.
    const checks = statements.filter((s: any) => s.Action === 'secretsmanager:DescribeSecret');
    expect(checks.map((s: any) => JSON.stringify(s.Resource)).sort()).toEqual([
      expect.stringMatching(/:secret:content-api\/dataforseo-\?\?\?\?\?\?"/),
      expect.stringMatching(/:secret:content-api\/search-console-\?\?\?\?\?\?"/),
      expect.stringMatching(/:secret:content-api\/tavily-\?\?\?\?\?\?"/),
    ]);
    const secretActions = statements.filter(
      (s: any) => JSON.stringify(s.Action).includes('secretsmanager:') && !checks.includes(s),
    );
    // The providers' (9 DataForSEO readers, 1 Tavily, 2 Search Console) and the stack's own OAuth secret (the oauth function).
    expect(secretActions.length).toBe(13);
    for (const statement of secretActions) {
      expect(statement.Action).toBe('secretsmanager:GetSecretValue');
      expect(JSON.stringify(statement.Resource)).toMatch(
        /:secret:content-api\/(dataforseo|tavily|search-console)-\?\?\?\?\?\?"|^\{"Ref":"OAuthSecret\w+"\}$/,
      );
    }
    const policies = Object.values(withSecrets.findResources('AWS::IAM::Policy'));
    for (const policy of policies) {
      const sqs = policy.Properties.PolicyDocument.Statement.flatMap((s: any) => asList(s.Action)).filter((a: string) =>
        a.startsWith('sqs:'),
      );
      const receives = JSON.stringify(policy.Properties.Roles).includes('WorkerFunction');
      const allowed = receives
        ? [
            'sqs:SendMessage',
            'sqs:ReceiveMessage',
            'sqs:ChangeMessageVisibility',
            'sqs:GetQueueUrl',
            'sqs:DeleteMessage',
            'sqs:GetQueueAttributes',
          ]
        : ['sqs:SendMessage'];
      for (const action of sqs) expect(allowed).toContain(action);
    }
  });

  it("lets only the Search Console worker and the usage function (the account's e-mail) read the Search Console secret", () => {
    expect(readersOf('content-api/search-console').sort()).toEqual([
      expect.stringContaining('SearchConsoleWorkerFunction'),
      expect.stringContaining('UsageFunction'),
    ]);
    expect(envs().filter((v) => v.SEARCH_CONSOLE_SECRET === 'content-api/search-console')).toHaveLength(2);
  });

  it('lets only the research worker read the Tavily secret, and scopes Bedrock to the inference profile and its model', () => {
    expect(readersOf('content-api/tavily')).toEqual([expect.stringContaining('ResearchWorkerFunction')]);
    // The research tool names it too, for the data_source of the jobs it queues.
    expect(envs().filter((v) => v.TAVILY_SECRET === 'content-api/tavily')).toHaveLength(2);
    const statement = Object.values(withSecrets.findResources('AWS::IAM::Policy'))
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .find((s: any) => s.Action === 'bedrock:InvokeModel');
    const resources = JSON.stringify(statement.Resource);
    expect(resources).toContain(':inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0');
    expect(resources).toContain(':bedrock:*::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0');
    expect(resources).not.toContain('foundation-model/*');
  });
});

describe('cdk synth', () => {
  it(
    'synthesizes the app with the CDK CLI, offline, every function bundled',
    async () => {
      const synthesized = await cliTemplate();
      const functions = Object.values(synthesized.Resources).filter((r: any) => r.Type === 'AWS::Lambda::Function') as {
        Properties: { Code: { S3Key: string } };
      }[];
      expect(functions).toHaveLength(FUNCTIONS.length + WORKERS.length + 4); // + the monitoring schedule, the research sweep, the page schedule and the MCP stream
      for (const fn of functions)
        expect(readdirSync(join(cliOut, `asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`))).toContain(
          'index.js',
        );
    },
    CLI_SYNTH_BOUND_MS,
  );

  it(
    "reports no finding of CDK's validation: CloudFormation's resource schemas and cdk-nag, warnings included",
    async () => {
      await cliSynth;
      // CloudFormation Validate's findings are warnings only (cdk.json's validateAgainstDefaultRules is off),
      // which a synth prints and passes; here any fails.
      const report = JSON.parse(readFileSync(join(cliOut, 'validation-report.json'), 'utf8')) as {
        pluginReports: { pluginName: string; violations: { ruleName: string; description: string }[] }[];
      };
      expect(
        report.pluginReports.flatMap((r) => r.violations.map((v) => `${r.pluginName} ${v.ruleName}: ${v.description}`)),
      ).toEqual([]);
    },
    CLI_SYNTH_BOUND_MS,
  );
});
