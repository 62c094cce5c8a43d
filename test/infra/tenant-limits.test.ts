import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { answersHead, RATE_RULES, ROUTES } from '@cm/contract';
import { checkedApp } from '../../infra/checks';
import { ACCOUNT_API_LIMITS, HEAVY_TENANTS } from '../../infra/constructs/throttles';
import { EdgeStack } from '../../infra/edge-stack';
import { ContentApiStack } from '../../infra/stack';

/*
 * No tenant crowds another at the edge: API Gateway's route throttles sized so WAF's per-tenant limits
 * bind first, and the execute-api address off when the API has an origin domain. In process with
 * cdk-nag, no bundling.
 */
const app = checkedApp({ context: { 'aws:cdk:bundling-stacks': [] } });
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
  return items[0]!;
};
const stage = only(Object.values(main.findResources('AWS::ApiGatewayV2::Stage')));

it('passes cdk-nag with the origin domain', () => {
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
    const apiEdge = Object.entries(main.findResources('AWS::CloudFront::Distribution')).find(([id]) =>
      id.startsWith('ApiEdge'),
    )![1];
    expect(apiEdge.Properties.DistributionConfig.Origins).toEqual([
      expect.objectContaining({ DomainName: 'origin.api.example.com' }),
    ]);
    main.hasOutput('ApiOriginTarget', {
      Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ApiDomain'), 'RegionalDomainName'] },
    });
  });

  it('stays open without an origin domain, and the synth says so; an origin domain takes the edge', () => {
    const open = checkedApp({ context: { 'aws:cdk:bundling-stacks': [] } });
    const acl = (name: string) => `arn:aws:wafv2:us-east-1:123456789012:global/webacl/${name}/0f3c1a2b`;
    const stack = new ContentApiStack(open, 'Open', { edge: { api: acl('api'), stream: acl('mcp-stream') } });
    Annotations.fromStack(stack).hasWarning('/Open', Match.stringLikeRegexp('execute-api address stays open'));
    Template.fromStack(stack).hasResourceProperties('AWS::ApiGatewayV2::Api', {
      DisableExecuteApiEndpoint: false,
    });
    expect(
      () =>
        new ContentApiStack(checkedApp({ context: { 'aws:cdk:bundling-stacks': [] } }), 'NoEdge', {
          apiOrigin: { name: 'origin.api.example.com', certificateArn: originCertificate },
        }),
    ).toThrow('takes edge');
  });
});
