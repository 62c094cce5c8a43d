import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { answersHead, PUBLISH_BODY_LIMIT_BYTES, RATE_RULES, ROUTES, SERVICE_LIMITS } from '@cm/contract';
import { testApp } from './test-app';
import { RESERVED_CONCURRENCY } from '../../infra/constructs/concurrency';
import { ACCOUNT_API_LIMITS, HEAVY_TENANTS } from '../../infra/constructs/throttles';
import { EdgeStack } from '../../infra/edge-stack';
import { ContentApiStack } from '../../infra/stack';
import { given } from '../helpers/client';

/*
 * No tenant crowds another at the edge: API Gateway's route throttles sized so WAF's per-tenant limits
 * bind first, the execute-api address off when the API has an origin domain, and WAF's managed rule
 * groups (with the content routes' exclusion) and logs. In process with cdk-nag, no bundling.
 */
const app = testApp();
const edgeStack = new EdgeStack(app, 'TestEdge');
const acls = { api: edgeStack.apiAcl.attrArn, stream: edgeStack.streamAcl.attrArn };
const originCertificate = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f3c1a2b-4d5e-6f70-8192-a3b4c5d6e7f8';
const service = new ContentApiStack(app, 'Test', {
  edge: acls,
  apiOrigin: { name: 'origin.api.example.com', certificateArn: originCertificate },
});
const edge = Template.fromStack(edgeStack);
const main = Template.fromStack(service);
const only = <T>(items: T[]): T => {
  expect(items).toHaveLength(1);
  return given(items[0], 'the items[0]');
};
const stage = only(Object.values(main.findResources('AWS::ApiGatewayV2::Stage')));

it('passes cdk-nag with the origin domain, the managed rule groups and the WAF logs', () => {
  expect(() => app.synth({ force: true })).not.toThrow();
});

describe('API Gateway throttles', () => {
  /** What the rate rules let one key, token or address make a second on a route (RATE_RULES, as WAF counts). */
  const allowance = (method: string, path: string) => {
    const perSecond = (rule: (typeof RATE_RULES)[number]) => rule.limit / rule.windowSeconds;
    const scoped = RATE_RULES.filter(
      (rule) => rule.endpoint === 'api' && rule.routes?.some((r) => r.method === method && r.path === path),
    );
    const perAddress = RATE_RULES.filter((rule) => rule.endpoint === 'api' && rule.by === 'ip' && !rule.routes);
    return Math.max(...(scoped.length ? scoped : perAddress).map(perSecond));
  };
  const throttleOf = (key: string) => {
    const own = stage.Properties.RouteSettings?.[key];
    const settings = own ?? stage.Properties.DefaultRouteSettings;
    return { rate: settings.ThrottlingRateLimit, burst: settings.ThrottlingBurstLimit };
  };
  const routeKeys = ROUTES.flatMap((route) =>
    (answersHead(route) ? ['GET', 'HEAD'] : [route.method]).map((method) => ({
      key: `${method} ${route.path}`,
      method,
      path: route.path,
    })),
  );

  it("gives every route room for the design's heavy tenants at their whole WAF allowance at once, within the account's quota", () => {
    for (const { key, method, path } of routeKeys) {
      const { rate, burst } = throttleOf(key);
      expect({ key, fits: rate >= HEAVY_TENANTS * allowance(method, path) }).toEqual({ key, fits: true });
      expect(rate).toBeLessThanOrEqual(ACCOUNT_API_LIMITS.rateLimit);
      expect(burst).toBeGreaterThanOrEqual(rate);
      expect(burst).toBeLessThanOrEqual(ACCOUNT_API_LIMITS.burstLimit);
    }
    // The account's quota holds the heavy tenants at one address's allowance each, across all routes.
    expect(HEAVY_TENANTS * allowance('GET', '/health')).toBeLessThanOrEqual(ACCOUNT_API_LIMITS.rateLimit);
  });

  it('lets a key be refused by WAF for its own publishing while far more keys than the 10 that filled the old 100 a second publish', () => {
    const publish = throttleOf('POST /articles');
    const perKey = allowance('POST', '/articles');
    expect(perKey).toBe(10);
    expect(publish.rate / perKey).toBeGreaterThanOrEqual(HEAVY_TENANTS);
    expect(HEAVY_TENANTS).toBeGreaterThan(10);
    // Each paid tool: an agent at its 120 calls a minute, 50 of them on one tool.
    expect(throttleOf('POST /v1/tools/get_keywords').rate).toBeGreaterThanOrEqual(HEAVY_TENANTS * 2);
  });

  it('warns when the deployment sets the default throttle under what the heavy tenants make at one address each', () => {
    const small = new ContentApiStack(testApp(), 'Small', {
      throttle: { rateLimit: 100 },
    });
    Annotations.fromStack(small).hasWarning('/Small', Match.stringLikeRegexp('apiRateLimit=100 is under 1000'));
  });

  it('names only routes the API has in its route settings, and deploys the stage after them', () => {
    const keys = new Set(routeKeys.map((r) => r.key));
    const named = Object.keys(stage.Properties.RouteSettings);
    expect(named.length).toBeGreaterThan(0);
    for (const key of named) expect(keys.has(key)).toBe(true);
    const routeIds = Object.keys(main.findResources('AWS::ApiGatewayV2::Route'));
    expect(stage.DependsOn).toEqual(expect.arrayContaining(routeIds));
  });
});

describe('the execute-api address', () => {
  it("is off when the API has an origin domain: API Gateway's domain (its region's certificate) is the API distribution's origin, and its DNS target an output", () => {
    main.hasResourceProperties('AWS::ApiGatewayV2::Api', { DisableExecuteApiEndpoint: true });
    main.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: 'origin.api.example.com',
      DomainNameConfigurations: [Match.objectLike({ CertificateArn: originCertificate, SecurityPolicy: 'TLS_1_2' })],
    });
    main.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 1);
    const apiEdge = given(
      Object.entries(main.findResources('AWS::CloudFront::Distribution')).find(([id]) => id.startsWith('ApiEdge')),
      'the find',
    )[1];
    expect(apiEdge.Properties.DistributionConfig.Origins).toEqual([
      expect.objectContaining({ DomainName: 'origin.api.example.com' }),
    ]);
    main.hasOutput('ApiOriginTarget', {
      Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ApiDomain'), 'RegionalDomainName'] },
    });
  });

  it('stays open without an origin domain, and the synth says so; an origin domain takes the edge', () => {
    const open = testApp();
    const acl = (name: string) => `arn:aws:wafv2:us-east-1:123456789012:global/webacl/${name}/0f3c1a2b`;
    const stack = new ContentApiStack(open, 'Open', { edge: { api: acl('api'), stream: acl('mcp-stream') } });
    Annotations.fromStack(stack).hasWarning('/Open', Match.stringLikeRegexp('execute-api address stays open'));
    Template.fromStack(stack).hasResourceProperties('AWS::ApiGatewayV2::Api', {
      DisableExecuteApiEndpoint: false,
    });
    expect(
      () =>
        new ContentApiStack(testApp(), 'NoEdge', {
          apiOrigin: { name: 'origin.api.example.com', certificateArn: originCertificate },
        }),
    ).toThrow('takes edge');
  });
});

describe("the streaming endpoint's function URL", () => {
  /** A doc page's text, its lines joined. */
  const docs = (page: string) => readFileSync(join(__dirname, '..', '..', 'docs', page), 'utf8').replace(/\s+/g, ' ');
  const MiB = 1024 * 1024;

  it('stays open behind the origin secret, as the decision recorded for it says, with the figures the stack makes', () => {
    const url = only(Object.values(main.findResources('AWS::Lambda::Url')));
    expect(url.Properties.AuthType).toBe('NONE');
    const reserved = RESERVED_CONCURRENCY['mcp-stream'];
    const stream = given(
      Object.entries(main.findResources('AWS::Lambda::Function')).find(([id]) => id.startsWith('McpStream')),
      'the find',
    )[1];
    expect(stream.Properties.ReservedConcurrentExecutions).toBe(reserved);

    const decisions = docs('api/decisions.md');
    const at = decisions.indexOf('<a id="streaming-function-url"></a>');
    expect(at).toBeGreaterThan(-1);
    const decision = decisions.slice(at, decisions.indexOf(' - ', at));
    for (const fact of [
      'x-amz-content-sha256',
      `within its ${reserved} reserved executions`,
      `a body on \`/mcp\` may be ${SERVICE_LIMITS.requestBodyBytes / MiB} MiB`,
      `a publish's ${PUBLISH_BODY_LIMIT_BYTES / MiB} MiB`,
      '-c apiOriginDomain',
    ])
      expect(decision).toContain(fact);
    // Linked from where operations.md describes the origin secret.
    const operations = docs('operations.md');
    const secret = operations.slice(operations.indexOf('## Only through CloudFront: the origin secret'));
    expect(secret.slice(0, secret.indexOf(' ## '))).toContain('(api/decisions.md#streaming-function-url)');
  });
});

describe('WAF', () => {
  const aclsOf = () => Object.values(edge.findResources('AWS::WAFv2::WebACL')).map((acl) => acl.Properties);

  it("runs AWS's managed rule groups after the rate rules on both endpoints, blocking", () => {
    for (const acl of aclsOf()) {
      const rules = [...acl.Rules].sort((a: any, b: any) => a.Priority - b.Priority);
      const names = rules.map((rule: any) => rule.Name);
      const rate = rules.filter((rule: any) => rule.Statement.RateBasedStatement);
      expect(names.slice(rate.length)).toEqual([
        'AWSManagedRulesAmazonIpReputationList',
        'AWSManagedRulesKnownBadInputsRuleSet',
        'AWSManagedRulesCommonRuleSet',
        'body-rules-outside-content',
      ]);
      for (const rule of rules.filter((r: any) => r.Statement.ManagedRuleGroupStatement)) {
        expect(rule.OverrideAction).toEqual({ None: {} });
        expect(rule.Statement.ManagedRuleGroupStatement.VendorName).toBe('AWS');
      }
      expect(new Set(rules.map((rule: any) => rule.Priority)).size).toBe(rules.length);
    }
  });

  // Every rule of the two groups that reads the body, and its label, as AWS's rule group docs list them.
  const bodyRules = {
    AWSManagedRulesKnownBadInputsRuleSet: {
      JavaDeserializationRCE_BODY: 'awswaf:managed:aws:known-bad-inputs:JavaDeserializationRCE_Body',
      Log4JRCE_BODY: 'awswaf:managed:aws:known-bad-inputs:Log4JRCE_Body',
      ReactJSRCE_BODY: 'awswaf:managed:aws:known-bad-inputs:ReactJSRCE_Body',
    },
    AWSManagedRulesCommonRuleSet: {
      EC2MetaDataSSRF_BODY: 'awswaf:managed:aws:core-rule-set:EC2MetaDataSSRF_Body',
      GenericLFI_BODY: 'awswaf:managed:aws:core-rule-set:GenericLFI_Body',
      GenericRFI_BODY: 'awswaf:managed:aws:core-rule-set:GenericRFI_Body',
      CrossSiteScripting_BODY: 'awswaf:managed:aws:core-rule-set:CrossSiteScripting_Body',
    },
  };

  it("counts every body rule of the known-bad-inputs and core rule sets (and the core set's body size)", () => {
    for (const acl of aclsOf()) {
      for (const [group, rules] of Object.entries(bodyRules)) {
        const managed = acl.Rules.find((rule: any) => rule.Name === group);
        const overrides = managed.Statement.ManagedRuleGroupStatement.RuleActionOverrides;
        const counted = [
          ...Object.keys(rules),
          ...(group === 'AWSManagedRulesCommonRuleSet' ? ['SizeRestrictions_BODY'] : []),
        ];
        expect(overrides.map((o: any) => o.Name).sort()).toEqual(counted.sort());
        for (const override of overrides) expect(override.ActionToUse).toEqual({ Count: {} });
      }
    }
  });

  it("blocks the body rules' labels (not the body size's) on every route but the content routes", () => {
    for (const acl of aclsOf()) {
      const block = acl.Rules.find((rule: any) => rule.Name === 'body-rules-outside-content');
      expect(block.Action).toEqual({ Block: {} });
      // After the groups that add the labels.
      const groups = acl.Rules.filter((rule: any) => rule.Statement.ManagedRuleGroupStatement);
      for (const group of groups) expect(block.Priority).toBeGreaterThan(group.Priority);
      const [labels, outside] = block.Statement.AndStatement.Statements;
      const keys = labels.OrStatement.Statements.map((s: any) => s.LabelMatchStatement.Key);
      expect(keys.sort()).toEqual(
        Object.values(bodyRules)
          .flatMap((rules) => Object.values(rules))
          .sort(),
      );
      for (const statement of labels.OrStatement.Statements) expect(statement.LabelMatchStatement.Scope).toBe('LABEL');
      const excluded = JSON.stringify(outside.NotStatement.Statement);
      for (const path of ['/articles', '/questions']) expect(excluded).toContain(`"SearchString":"${path}"`);
      // The question's parts, by what is around their {id}.
      for (const part of ['/questions/', '/summary', '/answers'])
        expect(excluded).toContain(`"SearchString":"${part}"`);
      expect(excluded).not.toContain('/v1/tools');
      expect(excluded).not.toContain('/mcp');
    }
  });

  it('logs what each web ACL refused or counted to an aws-waf-logs- group kept a month, credential headers redacted', () => {
    const groups = Object.values(edge.findResources('AWS::Logs::LogGroup')).map((g) => g.Properties);
    expect(groups.map((g) => g.LogGroupName).sort()).toEqual([
      'aws-waf-logs-TestEdge-api',
      'aws-waf-logs-TestEdge-mcp-stream',
    ]);
    for (const group of groups) expect(group.RetentionInDays).toBe(30);
    const configs = Object.values(edge.findResources('AWS::WAFv2::LoggingConfiguration'));
    expect(configs).toHaveLength(2);
    for (const { Properties: config, DependsOn } of configs) {
      expect(JSON.stringify(config.LogDestinationConfigs)).toMatch(/log-group:aws-waf-logs-TestEdge-(api|mcp-stream)"/);
      expect(config.RedactedFields).toEqual(
        ['authorization', 'x-api-key', 'cookie'].map((name) => ({ SingleHeader: { Name: name } })),
      );
      expect(config.LoggingFilter).toMatchObject({
        DefaultBehavior: 'DROP',
        Filters: [expect.objectContaining({ Behavior: 'KEEP', Requirement: 'MEETS_ANY' })],
      });
      expect(DependsOn).toHaveLength(1);
    }
  });
});
