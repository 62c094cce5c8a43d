import { Match, Template } from 'aws-cdk-lib/assertions';
import { ORIGIN_VERIFY_HEADER } from '@cm/contract';
import { checkedApp } from '../../infra/checks';
import { SITE_DOMAIN_FUNCTION_CODE } from '../../infra/constructs/site-edge';
import { serviceStacks } from '../../infra/service-stacks';
import { ContentApiStack } from '../../infra/stack';

/* The CDN of the sites' pages (docs/api.md#the-cdn): a distribution of their own, at its address and the sites' domains. */

const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/0f3c1a2b-4d5e-6f70-8192-a3b4c5d6e7f8';
const acl = (name: string) => `arn:aws:wafv2:us-east-1:123456789012:global/webacl/${name}/0f3c1a2b`;
const acls = { api: acl('api'), stream: acl('mcp-stream') };
const siteDomains = { names: ['shop.example.com', 'blog.example.org'], certificateArn };

const app = checkedApp({ context: { 'aws:cdk:bundling-stacks': [] } });
const stack = new ContentApiStack(app, 'Sites', { edge: acls, siteDomains });
const t = Template.fromStack(stack);
const distributions = Object.values(t.findResources('AWS::CloudFront::Distribution')).map(
  (d) => d.Properties.DistributionConfig,
);
const sites = distributions.find((config) => config.Aliases?.includes('shop.example.com'));

it("serves the sites' pages on a distribution of its own, with the domains' certificate, WAF and the rewrite to /domains/<host>", () => {
  expect(distributions).toHaveLength(3);
  expect(sites).toMatchObject({
    Aliases: ['shop.example.com', 'blog.example.org'],
    ViewerCertificate: { AcmCertificateArn: certificateArn, MinimumProtocolVersion: 'TLSv1.2_2021' },
    WebACLId: acls.api,
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
  t.hasOutput('SiteDomainsTarget', { Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^SiteEdge'), 'DomainName'] } });
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
  const alone = Template.fromStack(
    new ContentApiStack(checkedApp({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Alone', { edge: acls }),
  );
  const configs = Object.values(alone.findResources('AWS::CloudFront::Distribution')).map(
    (d) => d.Properties.DistributionConfig,
  );
  const pages = configs.find((config) => config.Comment.startsWith("The sites' pages"));
  expect(pages.Aliases).toBeUndefined();
  const pagesRef = { 'Fn::GetAtt': [Match.stringLikeRegexp('^SiteEdge'), 'DomainName'] };
  alone.hasOutput('PagesUrl', { Value: { 'Fn::Join': ['', ['https://', pagesRef]] } });
  const publish = Object.values(alone.findResources('AWS::Lambda::Function')).find((f) =>
    JSON.stringify(f.Properties.Role).includes('PublishFunction'),
  )!;
  expect(JSON.stringify(publish.Properties.Environment.Variables.PUBLIC_PAGES_URL)).toContain('SiteEdge');
  const redirect = Object.values(alone.findResources('AWS::CloudFront::Function')).find((f) =>
    f.Properties.FunctionConfig.Comment.includes('301'),
  )!;
  expect(JSON.stringify(redirect.Properties.FunctionCode)).toContain('SiteEdge');
  expect(JSON.stringify(redirect.Properties.FunctionCode)).not.toContain('PAGES_HOST');
});

it('takes the domains and their certificate from context, both or neither, and refuses a certificate of another region', () => {
  const contextApp = (context: Record<string, string>) =>
    checkedApp({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const { service } = serviceStacks(
    contextApp({ siteDomains: 'Shop.Example.com, blog.example.org', siteCertificateArn: certificateArn }),
    {},
  );
  expect(
    Object.values(Template.fromStack(service).findResources('AWS::CloudFront::Distribution')).some(
      (d) =>
        JSON.stringify(d.Properties.DistributionConfig.Aliases) ===
        JSON.stringify(['shop.example.com', 'blog.example.org']),
    ),
  ).toBe(true);
  expect(() => serviceStacks(contextApp({ siteDomains: 'shop.example.com' }), {})).toThrow(/siteCertificateArn/);
  expect(
    () =>
      new ContentApiStack(checkedApp({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Elsewhere', {
        edge: acls,
        siteDomains: { names: ['shop.example.com'], certificateArn: certificateArn.replace('us-east-1', 'eu-west-1') },
      }),
  ).toThrow(/us-east-1/);
});
