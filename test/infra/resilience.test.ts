import { Match, Template } from 'aws-cdk-lib/assertions';
import { FUNCTIONS, LIMITS, ORIGIN_VERIFY_HEADER, PAID_TOOLS, RATE_RULES, toolFunction, WORKERS } from '@cm/contract';
import { testApp } from './test-app';
import { RESEARCH_LOAD, RESERVED_CONCURRENCY, RESERVED_TOTAL } from '../../infra/constructs/concurrency';
import { EdgeStack } from '../../infra/edge-stack';
import { ContentApiStack, pascal } from '../../infra/stack';
import { nestedTemplate } from './nested';
import { given } from '../helpers/client';

/*
 * What keeps one tenant or one slow provider from taking the others down, as the stacks make it: reserved
 * concurrency per function class, WAF's rate rules (from RATE_RULES) on CloudFront in front of both
 * endpoints, and alarms that take several datapoints. In process with cdk-nag, no bundling.
 */
const app = testApp();
const edgeStack = new EdgeStack(app, 'TestEdge');
const mainStack = new ContentApiStack(app, 'Test', {
  edge: { api: edgeStack.apiAcl.attrArn, stream: edgeStack.streamAcl.attrArn },
});
const edge = Template.fromStack(edgeStack);
const main = Template.fromStack(mainStack);
const alarmsOf = nestedTemplate(mainStack, 'Alarms');

const fnResource = (t: Template, logical: string) => {
  const [found] = Object.entries(t.findResources('AWS::Lambda::Function')).filter(([id]) =>
    id.startsWith(`${logical}Function`),
  );
  if (!found) throw new Error(`no ${logical} function`);
  return found[1].Properties;
};

it('passes cdk-nag with the distributions and web ACLs', () => {
  expect(() => app.synth({ force: true })).not.toThrow();
});

it('caps the paid tools, mcp and mcp-stream with reserved concurrency, and leaves publish, notify, read and visitor pages in the shared pool', () => {
  for (const tool of PAID_TOOLS.filter((tool) => tool !== 'research'))
    expect(fnResource(main, pascal(toolFunction(tool))).ReservedConcurrentExecutions).toBe(20);
  expect(fnResource(main, 'Research').ReservedConcurrentExecutions).toBe(60);
  expect(fnResource(main, 'McpStream').ReservedConcurrentExecutions).toBe(20);
  expect(fnResource(main, 'Mcp').ReservedConcurrentExecutions).toBe(100);
  for (const open of ['Publish', 'Notify', 'Read', 'Visitor', 'Dashboard', 'Discovery', 'Usage'])
    expect(fnResource(main, open).ReservedConcurrentExecutions).toBeUndefined();
  // Within the default quota of 1,000, with Lambda's 100 unreserved.
  expect(RESERVED_TOTAL).toBe(300);
  expect(Object.keys(RESERVED_CONCURRENCY)).toHaveLength(9);
});

it('reserves research and mcp executions for the design peak of research: every call waiting its whole wait, under the 80% alarm', () => {
  // 50,000 calls a day at 3 times the average: 1.74 a second, each holding its function for its
  // longest wait (wait_ms, 25 s, a job lasting 30 to 60 s) and a second of its own.
  const perSecond = (RESEARCH_LOAD.callsPerDay / 86_400) * RESEARCH_LOAD.peakFactor;
  expect(perSecond).toBeCloseTo(1.74, 2);
  const inFlight = perSecond * (LIMITS.waitMsMax / 1000 + 1);
  expect(inFlight).toBeCloseTo(45.1, 1);
  const research = fnResource(main, 'Research').ReservedConcurrentExecutions;
  // None refused at the peak (the old 20 served 0.8 calls a second), and the alarm at 80% quiet.
  expect(research).toBeGreaterThanOrEqual(inFlight / 0.8);
  // mcp holds one of its own executions for each tool call it makes: research's at the peak and more.
  expect(fnResource(main, 'Mcp').ReservedConcurrentExecutions).toBeGreaterThanOrEqual(research + 2 * 20);
  const alarm = Object.values(alarmsOf.findResources('AWS::CloudWatch::Alarm')).find((a) =>
    String(a.Properties.AlarmName ?? a.Properties.AlarmDescription).includes('research function runs at 80%'),
  );
  expect(alarm?.Properties.Threshold).toBe(Math.ceil(research * 0.8));
  expect(alarm?.Properties.Threshold).toBeGreaterThan(inFlight);
});

it('reserves nothing when told the account cannot', () => {
  const small = testApp();
  const t = Template.fromStack(new ContentApiStack(small, 'Small', { reserveConcurrency: false }));
  const reserved = Object.values(t.findResources('AWS::Lambda::Function')).filter(
    (f) => f.Properties.ReservedConcurrentExecutions !== undefined,
  );
  expect(reserved).toHaveLength(0);
});

it('makes each rate rule a WAF rate-based rule of its endpoint: per key by header, per address by IP, 429 with Retry-After', () => {
  const acls = Object.values(edge.findResources('AWS::WAFv2::WebACL')).map((acl) => acl.Properties);
  expect(acls).toHaveLength(2);
  for (const acl of acls) expect(acl).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} } });
  // The managed rule groups after them: tenant-limits.test.ts.
  const rules = acls.flatMap((acl) => acl.Rules).filter((rule: any) => rule.Statement.RateBasedStatement);
  expect(rules.map((rule: any) => rule.Name).sort()).toEqual(RATE_RULES.map((rule) => rule.name).sort());
  for (const spec of RATE_RULES) {
    const rule = rules.find((r: any) => r.Name === spec.name);
    const statement = rule.Statement.RateBasedStatement;
    expect(statement).toMatchObject({ Limit: spec.limit, EvaluationWindowSec: spec.windowSeconds });
    if (spec.by === 'ip') expect(statement.AggregateKeyType).toBe('IP');
    else
      expect(statement).toMatchObject({
        AggregateKeyType: 'CUSTOM_KEYS',
        CustomKeys: [{ Header: { Name: spec.by.header } }],
      });
    expect(rule.Action.Block.CustomResponse).toEqual({
      ResponseCode: 429,
      CustomResponseBodyKey: `rate-limited-${spec.windowSeconds}`,
      ResponseHeaders: [{ Name: 'retry-after', Value: String(spec.windowSeconds) }],
    });
    // Scoped to the rule's routes by method and exact path.
    for (const route of spec.routes ?? [])
      expect(JSON.stringify(statement.ScopeDownStatement)).toContain(`"${route.path}"`);
  }
  const paid = rules.find((r: any) => r.Name === 'paid-tools-per-key').Statement.RateBasedStatement.ScopeDownStatement;
  expect(paid.OrStatement.Statements).toHaveLength(PAID_TOOLS.length);
  for (const acl of acls) {
    const body = JSON.parse(Object.values<any>(acl.CustomResponseBodies)[0].Content);
    expect(body).toMatchObject({ error: 'rate_limited', code: 'rate_limited' });
  }
});

it('puts a CloudFront distribution with its web ACL in front of the API and of the streaming endpoint, caching nothing, and names it in the API’s links', () => {
  const distributions = Object.values(main.findResources('AWS::CloudFront::Distribution'))
    .map((d) => d.Properties.DistributionConfig)
    // The pages' own and their domains' (site-edge.test.ts).
    .filter((config) => !config.Comment.startsWith("The sites' pages"));
  expect(distributions).toHaveLength(2);
  for (const config of distributions) {
    expect(config.WebACLId).toBeDefined();
    expect(config.DefaultCacheBehavior).toMatchObject({
      // CachingDisabled, and AllViewerExceptHostHeader: API Gateway and function URLs answer to their own host.
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
      ViewerProtocolPolicy: 'https-only',
    });
  }
  // The API's /sites/* only redirects to the pages' distribution.
  expect(distributions.flatMap((config) => config.CacheBehaviors ?? [])).toEqual([
    expect.objectContaining({
      PathPattern: '/sites/*',
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
      FunctionAssociations: [expect.objectContaining({ EventType: 'viewer-request' })],
    }),
  ]);
  expect(JSON.stringify(fnResource(main, 'Publish').Environment.Variables.PUBLIC_BASE_URL)).toContain('ApiEdge');
  main.hasOutput('ApiUrl', {
    Value: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [Match.stringLikeRegexp('^ApiEdge'), 'DomainName'] }]] },
  });
});

it('adds the origin secret to what both distributions send on, and lets every function that answers requests, and no other, read the same secret to check', () => {
  const secretId = Object.keys(main.findResources('AWS::SecretsManager::Secret')).find((id) =>
    id.startsWith('OriginVerify'),
  );
  expect(secretId).toMatch(/^OriginVerify/);
  const reference = (value: unknown) => JSON.stringify(value).includes(given(secretId, 'the secretId'));
  const origins = Object.values(main.findResources('AWS::CloudFront::Distribution')).flatMap(
    (d) => d.Properties.DistributionConfig.Origins,
  );
  // The API's, the stream's, the pages' and the sites' own domains'.
  expect(origins).toHaveLength(4);
  for (const origin of origins) {
    expect(origin.OriginCustomHeaders).toEqual([{ HeaderName: ORIGIN_VERIFY_HEADER, HeaderValue: expect.anything() }]);
    expect(reference(origin.OriginCustomHeaders[0].HeaderValue)).toBe(true);
  }
  const checkers = [...FUNCTIONS.map(pascal), 'McpStream'];
  for (const fn of checkers)
    expect(fnResource(main, fn).Environment.Variables.ORIGIN_VERIFY_SECRET_ARN).toEqual({ Ref: secretId });
  // Workers and schedules answer no request.
  expect(fnResource(main, pascal('relink-worker')).Environment.Variables.ORIGIN_VERIFY_SECRET_ARN).toBeUndefined();
  // Read by exactly those functions: its value, nothing else of it.
  const readers = Object.values(main.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes(`"Ref":"${secretId}"`))
    .map((p) => {
      const statements = p.Properties.PolicyDocument.Statement.filter((st: { Resource: unknown }) =>
        reference(st.Resource),
      );
      expect(statements).toEqual([
        expect.objectContaining({ Action: 'secretsmanager:GetSecretValue', Effect: 'Allow' }),
      ]);
      return given(
        JSON.stringify(p.Properties.Roles).match(/"(\w+?)(?:Function)?(?:ServiceRole|Role)/),
        'the match',
      )[1];
    });
  expect(readers.sort()).toEqual([...checkers].sort());
});

it('puts no secret value in any function environment (lambda:GetFunctionConfiguration shows it): the functions read secrets at run time', () => {
  const functions = Object.entries(main.findResources('AWS::Lambda::Function'));
  expect(functions.length).toBeGreaterThan(FUNCTIONS.length);
  for (const [id, fn] of functions) {
    const env = JSON.stringify(fn.Properties.Environment?.Variables ?? {});
    // A resolved secret is a dynamic reference ({{resolve:secretsmanager:…:SecretString…}}).
    expect({ id, resolved: /resolve:secretsmanager|SecretString/.test(env) }).toEqual({ id, resolved: false });
  }
  expect(fnResource(main, 'Oauth').Environment.Variables).toMatchObject({
    OAUTH_SECRET_ARN: { Ref: expect.stringMatching(/^OAuthSecret/) },
  });
});

it('puts a custom domain on the API distribution with its us-east-1 certificate (TLS 1.2), not on API Gateway, and refuses a certificate of another region', () => {
  const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/0f3c1a2b-4d5e-6f70-8192-a3b4c5d6e7f8';
  const domainApp = testApp();
  const acl = (name: string) => `arn:aws:wafv2:us-east-1:123456789012:global/webacl/${name}/0f3c1a2b`;
  const acls = { api: acl('api'), stream: acl('mcp-stream') };
  const withDomain = Template.fromStack(
    new ContentApiStack(domainApp, 'Domain', { edge: acls, domain: { name: 'api.example.com', certificateArn } }),
  );
  withDomain.hasResourceProperties('AWS::CloudFront::Distribution', {
    DistributionConfig: Match.objectLike({
      Aliases: ['api.example.com'],
      ViewerCertificate: Match.objectLike({
        AcmCertificateArn: certificateArn,
        MinimumProtocolVersion: 'TLSv1.2_2021',
      }),
    }),
  });
  withDomain.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
  withDomain.hasOutput('ApiDomainTarget', {
    Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ApiEdge'), 'DomainName'] },
  });
  withDomain.hasOutput('PublicBaseUrl', { Value: 'https://api.example.com' });
  expect(() => domainApp.synth({ force: true })).not.toThrow();
  const elsewhere = certificateArn.replace('us-east-1', 'eu-west-1');
  expect(
    () =>
      new ContentApiStack(testApp(), 'Elsewhere', {
        edge: acls,
        domain: { name: 'api.example.com', certificateArn: elsewhere },
      }),
  ).toThrow('must be in us-east-1');
});

it('replaces the origin secret with a new version: a new secret, named by both distributions and the functions', () => {
  const acl = (name: string) => `arn:aws:wafv2:us-east-1:123456789012:global/webacl/${name}/0f3c1a2b`;
  const rotated = Template.fromStack(
    new ContentApiStack(testApp(), 'Rotated', {
      edge: { api: acl('api'), stream: acl('mcp-stream') },
      originVerifyVersion: 2,
    }),
  );
  const secrets = Object.keys(rotated.findResources('AWS::SecretsManager::Secret')).filter((id) =>
    id.startsWith('OriginVerify'),
  );
  expect(secrets).toEqual([expect.stringMatching(/^OriginVerifyV2/)]);
  expect(fnResource(rotated, 'Publish').Environment.Variables.ORIGIN_VERIFY_SECRET_ARN).toEqual({ Ref: secrets[0] });
  for (const d of Object.values(rotated.findResources('AWS::CloudFront::Distribution')))
    expect(JSON.stringify(d.Properties.DistributionConfig.Origins)).toContain(secrets[0]);
});

it('alarms on several datapoints by default: 2 of 3 periods, the budget alarms and the daily schedule failing alone on one, a stalled queue on all of its window', () => {
  // The budget alarms: a site's, and the daily schedule stopping short of the deployment's; and the
  // daily schedule's function failing (its one run a day).
  const alarms = Object.entries(alarmsOf.findResources('AWS::CloudWatch::Alarm')).map(([id, a]) => ({
    id,
    ...a.Properties,
  }));
  const single = alarms.filter((a) => a.EvaluationPeriods === 1);
  expect(single.map((a) => a.MetricName ?? a.id.replace(/[0-9A-F]{8}$/, ''))).toEqual([
    'MonitorScheduleErrorAlarm',
    'budget_usd_used_pct',
    'budget_usd_used_pct',
    'scheduled_work_stopped',
  ]);
  // A queue is stalled when every period of its window had messages waiting and none deleted.
  const stalled = alarms.filter((a) => a.id.includes('QueueStalledAlarm'));
  expect(stalled).toHaveLength(WORKERS.length);
  for (const alarm of stalled) expect(alarm.EvaluationPeriods).toBe(alarm.DatapointsToAlarm);
  for (const alarm of alarms.filter((a) => a.EvaluationPeriods !== 1 && !stalled.includes(a)))
    expect(alarm).toMatchObject({ EvaluationPeriods: 3, DatapointsToAlarm: 2 });
  for (const alarm of Object.values(edge.findResources('AWS::CloudWatch::Alarm')))
    expect(alarm.Properties).toMatchObject({ EvaluationPeriods: 3, DatapointsToAlarm: 2 });
});

it('alarms on throttles, concurrency near each reservation, table throttling, an open breaker and 429 floods', () => {
  const alarms = Object.values(alarmsOf.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
  const named = (metric: string) => alarms.filter((a) => a.MetricName === metric);
  expect(named('Throttles')).toHaveLength(1);
  const byNumber = (x: number, y: number) => x - y;
  expect(
    named('ConcurrentExecutions')
      .map((a) => a.Threshold)
      .sort(byNumber),
  ).toEqual([16, 16, 16, 16, 16, 16, 16, 48, 80].sort(byNumber));
  expect(named('provider_calls_refused')).toHaveLength(1);
  const table = alarms.filter((a) => JSON.stringify(a.Metrics ?? []).includes('ThrottleEvents'));
  expect(table).toHaveLength(1);
  const blocked = Object.values(edge.findResources('AWS::CloudWatch::Alarm')).filter(
    (a) => a.Properties.MetricName === 'BlockedRequests',
  );
  expect(blocked).toHaveLength(2);
});
