import { Bug } from '@cm/core';
import { Duration, Token, Validations } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  CacheQueryStringBehavior,
  CfnConnectionGroup,
  CfnDistribution,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
  type BehaviorOptions,
  type IOrigin,
} from 'aws-cdk-lib/aws-cloudfront';
import type { Construct } from 'constructs';
import { SERVICE_LIMITS, SITE_DOMAIN_PARAMETER } from '@cm/contract';

/*
 * The CDN of the sites' pages (docs/api.md#the-cdn): their pages, listings, sitemaps and feeds are kept
 * at CloudFront's edges for as long as the origin's Cache-Control says (a minute: no invalidations), and
 * sent compressed, by a distribution of their own: an origin apart from the API's and the dashboard's
 * (where a site's key is typed), at its own `*.cloudfront.net` address for `/sites/<id>/…`. The API's
 * distribution sends `/sites/*` there (301). The sites' own domains are served by a multi-tenant
 * distribution beside it: one distribution tenant per site, made at run time (`npm run sites --
 * serve-domain`), each with its own CloudFront-managed certificate, so neither CloudFront's 100 aliases
 * of a distribution nor ACM's names of a certificate bound how many sites have a domain.
 */

/**
 * The viewer-request function of the pages' distribution. At its own address it passes on the sites'
 * pages (`/sites/…`), robots.txt and the icon as they are; any other request goes on as
 * `/domains/<host><path>`, the host in lower case without a port or final dot: the same rule as core's
 * `domainPath` (the local server's), which a test holds it to. Anything else of the API at its own
 * address goes on as a host no site serves: a 404. CloudFront's JavaScript 2.0. The Host rewrite is
 * there for the deprecated `siteDomains` aliases (LegacySiteDomains) only, while domains move to their
 * tenants: it goes with that setting.
 */
export const SITE_DOMAIN_FUNCTION_CODE = [
  'function handler(event) {',
  '  var request = event.request;',
  "  var host = request.headers.host.value.toLowerCase().replace(/:\\d+$/, '').replace(/\\.$/, '');",
  '  var own = host === event.context.distributionDomainName;',
  "  if (own && (request.uri.indexOf('/sites/') === 0 || request.uri === '/robots.txt' || request.uri === '/favicon.ico')) return request;",
  "  request.uri = '/domains/' + host + (request.uri === '/' ? '' : request.uri);",
  '  return request;',
  '}',
].join('\n');

/**
 * The viewer-request function of the sites' domains (the multi-tenant distribution): every request goes
 * on as `/domains/<domain><path>`, the domain being the tenant's own parameter, which `serve-domain` set
 * from the site's registered domain. The request's Host plays no part: what a path (the cache key) and
 * the origin's URL name is the tenant's, never what a viewer sent.
 */
export const TENANT_DOMAIN_FUNCTION_CODE = [
  "import cf from 'cloudfront';",
  'function handler(event) {',
  '  var request = event.request;',
  `  var domain = cf.distributionTenant.parameters.get('${SITE_DOMAIN_PARAMETER}');`,
  "  request.uri = '/domains/' + domain + (request.uri === '/' ? '' : request.uri);",
  '  return request;',
  '}',
].join('\n');

/**
 * The viewer-request function of the API's `/sites/*`: a permanent redirect to the same page at the
 * pages' distribution (`PAGES_HOST` stands for its domain), its query string kept.
 */
export const PAGES_REDIRECT_FUNCTION_CODE = [
  'function handler(event) {',
  '  var request = event.request;',
  '  var query = Object.keys(request.querystring).map(function (name) {',
  '    var value = request.querystring[name];',
  "    return encodeURIComponent(name) + '=' + encodeURIComponent(value.value);",
  "  }).join('&');",
  "  var location = 'https://PAGES_HOST' + request.uri + (query ? '?' + query : '');",
  "  return { statusCode: 301, statusDescription: 'Moved Permanently', headers: { location: { value: location } } };",
  '}',
].join('\n');

/** The query parameter a listing's older page is at (publishing's LISTING_CURSOR): the one in the cache key. */
const LISTING_CURSOR = 'before';

/**
 * Keyed on the path (which names the host, at a site's domain) and the listing cursor, nothing else: no
 * header, cookie or other query makes a copy of its own. The origin's Cache-Control decides how long
 * (a minute); without one (an error), nothing is kept.
 */
function pagesCachePolicy(scope: Construct): CachePolicy {
  return new CachePolicy(scope, 'SitePagesCache', {
    comment: "The sites' pages: by path and listing cursor, as long as the origin says",
    minTtl: Duration.seconds(0),
    defaultTtl: Duration.seconds(0),
    maxTtl: Duration.seconds(SERVICE_LIMITS.visitorMaxAgeSeconds),
    queryStringBehavior: CacheQueryStringBehavior.allowList(LISTING_CURSOR),
    enableAcceptEncodingGzip: true,
    enableAcceptEncodingBrotli: true,
  });
}

/** HTTPS only, for a year, on every page a site's readers get (the origin sets the rest: CSP, nosniff, referrer). */
function strictTransport(scope: Construct): ResponseHeadersPolicy {
  return new ResponseHeadersPolicy(scope, 'SitePagesHeaders', {
    comment: "HSTS on the sites' pages",
    securityHeadersBehavior: {
      strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: false, override: true },
      frameOptions: { frameOption: HeadersFrameOption.DENY, override: false },
    },
  });
}

/** How the sites' pages are served from an origin: GET and HEAD, cached as above, compressed, HTTPS. */
export type SitePagesBehavior = (origin: IOrigin) => BehaviorOptions;

/** The API's `/sites/*`: a permanent redirect to the pages' distribution, answered at the edge. */
export function redirectToPages(scope: Construct, origin: IOrigin, pagesHost: string): BehaviorOptions {
  const redirect = new CloudFrontFunction(scope, 'PagesRedirect', {
    comment: "The API's /sites/* → the pages' distribution (301)",
    code: FunctionCode.fromInline(PAGES_REDIRECT_FUNCTION_CODE.replace('PAGES_HOST', pagesHost)),
    runtime: FunctionRuntime.JS_2_0,
  });
  return {
    origin,
    allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
    cachePolicy: CachePolicy.CACHING_DISABLED,
    viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
    functionAssociations: [{ function: redirect, eventType: FunctionEventType.VIEWER_REQUEST }],
  };
}

/** The behavior of the sites' pages, its policies made once for every distribution that serves them. */
export function sitePages(scope: Construct): SitePagesBehavior {
  const cachePolicy = pagesCachePolicy(scope);
  const responseHeadersPolicy = strictTransport(scope);
  return (origin) => ({
    origin,
    allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
    cachePolicy,
    responseHeadersPolicy,
    compress: true,
    viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
  });
}

/** CloudFront's answer to "a distribution: are its readers limited, its requests logged?", for the pages' distributions. */
function acknowledgeEdgeFindings(distribution: Distribution): void {
  Validations.of(distribution).acknowledge(
    { id: 'AwsSolutions-CFR1', reason: "A site's readers may be in any country" },
    {
      id: 'AwsSolutions-CFR4',
      reason:
        "The default *.cloudfront.net certificate cannot set a minimum TLS version; a site's domain has its tenant's managed certificate",
    },
    {
      id: 'AwsSolutions-CFR3',
      reason:
        "API Gateway's access logs record every request that reaches the origin; WAF's metrics and sampled requests show what it refused",
    },
  );
}

/**
 * The sites' domains of before the tenants (`-c siteDomains`, `-c siteCertificateArn`): aliases of the
 * pages' distribution on one certificate naming them all. Deprecated, kept for one release so a
 * deployment's domains keep serving while each moves to its tenant (docs/operations.md#moving-the-domains-of-sitedomains-to-tenants).
 */
export interface LegacySiteDomains {
  names: readonly string[];
  /** An ACM certificate in us-east-1 (CloudFront reads it there) naming every domain. */
  certificateArn: string;
}

/**
 * The distribution of the sites' pages at its own address: their `/sites/…` pages (anything else a
 * 404), behind WAF's rate rules; and, while the deprecated `siteDomains` are set, those domains.
 */
export function pagesDistribution(
  scope: Construct,
  pages: SitePagesBehavior,
  origin: IOrigin,
  webAclId: string,
  legacy?: LegacySiteDomains,
): Distribution {
  if (
    legacy &&
    !Token.isUnresolved(legacy.certificateArn) &&
    !legacy.certificateArn.startsWith('arn:aws:acm:us-east-1:')
  )
    throw new Error(
      `The sites' certificate must be in us-east-1, where CloudFront reads it (not ${legacy.certificateArn})`,
    );
  if (legacy?.names.length === 0) throw new Error('siteDomains names no domain');
  // The Host rewrite serves the siteDomains aliases; it is removed with that setting, in the next release.
  const rewrite = new CloudFrontFunction(scope, 'SiteDomainPaths', {
    comment: "The pages' own /sites/…; anything else → /domains/<host>/…: a siteDomains alias (deprecated), else a 404",
    code: FunctionCode.fromInline(SITE_DOMAIN_FUNCTION_CODE),
    runtime: FunctionRuntime.JS_2_0,
  });
  const distribution = new Distribution(scope, 'SiteEdge', {
    comment: "The sites' pages at its own address: cached a minute",
    ...(legacy
      ? {
          domainNames: [...legacy.names],
          certificate: Certificate.fromCertificateArn(scope, 'SiteEdgeCertificate', legacy.certificateArn),
          minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
        }
      : {}),
    defaultBehavior: {
      ...pages(origin),
      functionAssociations: [{ function: rewrite, eventType: FunctionEventType.VIEWER_REQUEST }],
    },
    webAclId,
    priceClass: PriceClass.PRICE_CLASS_100,
  });
  acknowledgeEdgeFindings(distribution);
  return distribution;
}

/** The sites' own domains: the multi-tenant distribution their tenants are made on, and where they point. */
export interface SiteDomainsEdge {
  distribution: Distribution;
  /** The connection group every tenant joins: its routing endpoint is what a site's domain is a CNAME of. */
  connectionGroup: CfnConnectionGroup;
}

/**
 * The multi-tenant distribution of the sites' own domains (`ConnectionMode: tenant-only`: it serves no
 * address of its own, only its tenants' domains) and the connection group its tenants join. The same
 * pages' behavior, origin and WAF as the pages' own distribution; each request is rewritten to
 * `/domains/<the tenant's domain>/…` (TENANT_DOMAIN_FUNCTION_CODE). No domain is in the template: a
 * tenant per site is made, changed and deleted at run time (docs/operations.md#a-sites-own-domain).
 */
export function siteDomainsEdge(
  scope: Construct,
  pages: SitePagesBehavior,
  origin: IOrigin,
  webAclId: string,
): SiteDomainsEdge {
  const rewrite = new CloudFrontFunction(scope, 'TenantDomainPaths', {
    comment: "https://<site domain>/<path> → /domains/<the tenant's site_domain>/<path>",
    code: FunctionCode.fromInline(TENANT_DOMAIN_FUNCTION_CODE),
    runtime: FunctionRuntime.JS_2_0,
  });
  const distribution = new Distribution(scope, 'SiteDomainsEdge', {
    comment: "The sites' pages at their own domains: a tenant per site, cached a minute",
    defaultBehavior: {
      ...pages(origin),
      functionAssociations: [{ function: rewrite, eventType: FunctionEventType.VIEWER_REQUEST }],
    },
    webAclId,
  });
  const config = distribution.node.defaultChild;
  if (!(config instanceof CfnDistribution)) throw new Bug('A Distribution is made of a CfnDistribution');
  config.addPropertyOverride('DistributionConfig.ConnectionMode', 'tenant-only');
  config.addPropertyOverride('DistributionConfig.TenantConfig', {
    ParameterDefinitions: [
      {
        Name: SITE_DOMAIN_PARAMETER,
        Definition: { StringSchema: { Required: true, Comment: "The site's domain, as serve-domain registered it" } },
      },
    ],
  });
  // A multi-tenant distribution takes IPv6 from its connection group, not from its own config.
  config.addPropertyDeletionOverride('DistributionConfig.IPV6Enabled');
  acknowledgeEdgeFindings(distribution);
  const connectionGroup = new CfnConnectionGroup(scope, 'SiteDomainsConnections', {
    name: `${distribution.stack.stackName}-site-domains`,
    enabled: true,
    ipv6Enabled: true,
  });
  return { distribution, connectionGroup };
}
