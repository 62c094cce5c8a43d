import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { ORIGIN_VERIFY_HEADER, SITE_DOMAIN_PARAMETER } from '@cm/contract';
import { testApp } from './test-app';
import { SITE_DOMAIN_FUNCTION_CODE, TENANT_DOMAIN_FUNCTION_CODE } from '../../infra/constructs/site-edge';
import { serviceStacks } from '../../infra/service-stacks';
import { ContentApiStack } from '../../infra/stack';
import { given } from '../helpers/client';

/* The CDN of the sites' pages (docs/api.md#the-cdn): a distribution of their own, at its address and the sites' domains. */

const acl = (name: string) => `arn:aws:wafv2:us-east-1:123456789012:global/webacl/${name}/0f3c1a2b`;
const acls = { api: acl('api'), stream: acl('mcp-stream') };

const app = testApp();
const stack = new ContentApiStack(app, 'Sites', { edge: acls });
const t = Template.fromStack(stack);
const distributions = Object.values(t.findResources('AWS::CloudFront::Distribution')).map(
  (d) => d.Properties.DistributionConfig,
);
const sites = distributions.find((config) => config.ConnectionMode === 'tenant-only');

it("serves the sites' domains on a multi-tenant distribution and its connection group: no domain in the template, WAF, the rewrite by the tenant's domain", () => {
  expect(distributions).toHaveLength(4);
  // No distribution names a site's domain: each is a tenant made at run time, with its own certificate.
  for (const config of distributions) expect(config.Aliases).toBeUndefined();
  expect(sites).toMatchObject({
    WebACLId: acls.api,
    TenantConfig: {
      ParameterDefinitions: [
        { Name: SITE_DOMAIN_PARAMETER, Definition: { StringSchema: { Required: true, Comment: expect.any(String) } } },
      ],
    },
  });
  // What a multi-tenant distribution takes from its connection group, or not at all.
  for (const field of ['IPV6Enabled', 'PriceClass', 'ViewerCertificate']) expect(sites).not.toHaveProperty(field);
  t.resourceCountIs('AWS::CloudFront::ConnectionGroup', 1);
  t.hasResourceProperties('AWS::CloudFront::ConnectionGroup', { Enabled: true, Ipv6Enabled: true });
  t.resourceCountIs('AWS::CloudFront::DistributionTenant', 0);
  t.hasResourceProperties('AWS::CloudFront::Function', {
    FunctionCode: TENANT_DOMAIN_FUNCTION_CODE,
    FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
  });
  expect(sites.DefaultCacheBehavior).toMatchObject({
    AllowedMethods: ['GET', 'HEAD'],
    Compress: true,
    ViewerProtocolPolicy: 'redirect-to-https',
    FunctionAssociations: [{ EventType: 'viewer-request', FunctionARN: expect.anything() }],
  });
  t.hasResourceProperties('AWS::CloudFront::Function', {
    FunctionCode: SITE_DOMAIN_FUNCTION_CODE,
    FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
  });
  // The origin is the API, with the secret that proves a request passed WAF.
  expect(sites.Origins).toHaveLength(1);
  expect(sites.Origins[0].OriginCustomHeaders).toEqual([
    { HeaderName: ORIGIN_VERIFY_HEADER, HeaderValue: expect.anything() },
  ]);
  const group = { 'Fn::GetAtt': [Match.stringLikeRegexp('^SiteDomainsConnections'), Match.anyValue()] };
  t.hasOutput('SiteDomainsTarget', {
    Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^SiteDomainsConnections'), 'RoutingEndpoint'] },
  });
  t.hasOutput('SiteDomainsConnectionGroupId', { Value: group });
  t.hasOutput('SiteDomainsDistributionId', { Value: { Ref: Match.stringLikeRegexp('^SiteDomainsEdge') } });
  expect(() => app.synth({ force: true })).not.toThrow();
});

it("caches the sites' pages by path and listing cursor only, at most the minute the origin says, compressed, with HSTS", () => {
  t.hasResourceProperties('AWS::CloudFront::CachePolicy', {
    CachePolicyConfig: {
      Name: Match.anyValue(),
      Comment: Match.anyValue(),
      MinTTL: 0,
      DefaultTTL: 0,
      MaxTTL: 60,
      ParametersInCacheKeyAndForwardedToOrigin: {
        CookiesConfig: { CookieBehavior: 'none' },
        HeadersConfig: { HeaderBehavior: 'none' },
        QueryStringsConfig: { QueryStringBehavior: 'whitelist', QueryStrings: ['before'] },
        EnableAcceptEncodingGzip: true,
        EnableAcceptEncodingBrotli: true,
      },
    },
  });
  t.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
    ResponseHeadersPolicyConfig: Match.objectLike({
      SecurityHeadersConfig: Match.objectLike({
        StrictTransportSecurity: { AccessControlMaxAgeSec: 31536000, IncludeSubdomains: false, Override: true },
      }),
    }),
  });
  const [policy] = Object.keys(t.findResources('AWS::CloudFront::CachePolicy'));
  expect(sites.DefaultCacheBehavior.CachePolicyId).toEqual({ Ref: policy });
});

it("moves the pages to an origin apart from the API's and the dashboard's: PUBLIC_PAGES_URL, and the API's /sites/* redirected there", () => {
  const alone = Template.fromStack(new ContentApiStack(testApp(), 'Alone', { edge: acls }));
  const configs = Object.values(alone.findResources('AWS::CloudFront::Distribution')).map(
    (d) => d.Properties.DistributionConfig,
  );
  const pages = configs.find((config) => config.Comment.startsWith("The sites' pages"));
  expect(pages.Aliases).toBeUndefined();
  const pagesRef = { 'Fn::GetAtt': [Match.stringLikeRegexp('^SiteEdge'), 'DomainName'] };
  alone.hasOutput('PagesUrl', { Value: { 'Fn::Join': ['', ['https://', pagesRef]] } });
  const publish = given(
    Object.values(alone.findResources('AWS::Lambda::Function')).find((f) =>
      JSON.stringify(f.Properties.Role).includes('PublishFunction'),
    ),
    'the find',
  );
  expect(JSON.stringify(publish.Properties.Environment.Variables.PUBLIC_PAGES_URL)).toContain('SiteEdge');
  const redirect = given(
    Object.values(alone.findResources('AWS::CloudFront::Function')).find((f) =>
      f.Properties.FunctionConfig.Comment.includes('301'),
    ),
    'the find',
  );
  expect(JSON.stringify(redirect.Properties.FunctionCode)).toContain('SiteEdge');
  expect(JSON.stringify(redirect.Properties.FunctionCode)).not.toContain('PAGES_HOST');
});

it("keeps the deprecated siteDomains on the pages' distribution, with a warning, while the domains move to tenants", () => {
  const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/0f3c1a2b';
  const { service } = serviceStacks(
    testApp({ siteDomains: 'Shop.example.com, blog.example.org', siteCertificateArn: certificateArn }),
    {},
  );
  const legacy = Template.fromStack(service);
  // The old aliases and certificate stay where they served, so no domain goes offline on this deploy.
  const configs = Object.values(legacy.findResources('AWS::CloudFront::Distribution')).map(
    (d) => d.Properties.DistributionConfig,
  );
  const pages = configs.find((config) => config.Comment.startsWith("The sites' pages at its own address"));
  expect(pages).toMatchObject({
    Aliases: ['shop.example.com', 'blog.example.org'],
    ViewerCertificate: { AcmCertificateArn: certificateArn, MinimumProtocolVersion: 'TLSv1.2_2021' },
  });
  // The Host rewrite they need is still on that distribution.
  expect(JSON.stringify(pages.DefaultCacheBehavior.FunctionAssociations)).toContain('SiteDomainPaths');
  Annotations.fromStack(service).hasWarning('*', Match.stringLikeRegexp('siteDomains.*deprecated'));
  expect(() =>
    serviceStacks(
      testApp({ siteDomains: 'shop.example.com', siteCertificateArn: 'arn:aws:acm:eu-west-1:1:certificate/x' }),
      {},
    ),
  ).toThrow(/us-east-1/);
  expect(() => serviceStacks(testApp({ siteDomains: 'shop.example.com' }), {})).toThrow(/siteCertificateArn/);
  expect(
    () => new ContentApiStack(testApp(), 'NoEdge', { legacySiteDomains: { names: ['a.example'], certificateArn } }),
  ).toThrow(/take edge/);
});
