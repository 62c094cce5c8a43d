import { Duration, Token, Validations } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  CacheQueryStringBehavior,
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
import { SERVICE_LIMITS } from '@cm/contract';

/*
 * The CDN of the sites' pages (docs/api.md#the-cdn): their pages, listings, sitemaps and feeds are kept
 * at CloudFront's edges for as long as the origin's Cache-Control says (a minute: no invalidations), and
 * sent compressed, by a distribution of their own: an origin apart from the API's and the dashboard's
 * (where a site's key is typed), at its own `*.cloudfront.net` address for `/sites/<id>/…` and at the
 * sites' own domains, whose requests it passes on as `/domains/<host>/<path>`. The API's distribution
 * sends `/sites/*` there (301).
 */

/** The sites whose pages are served at their own domains: the domains, and a certificate covering them all. */
export interface SiteDomains {
  names: readonly string[];
  /** An ACM certificate in us-east-1 (CloudFront reads it there) naming every domain. */
  certificateArn: string;
}

/**
 * The viewer-request function of the pages' distribution. At its own address it passes on the sites'
 * pages (`/sites/…`), robots.txt and the icon as they are; any other request, at a site's domain, goes
 * on as `/domains/<host><path>`, the host in lower case without a port or final dot: the same rule as
 * core's `domainPath` (the local server's), which a test holds it to. Anything else of the API at its
 * own address goes on as a host no site serves: a 404. CloudFront's JavaScript 2.0.
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

/**
 * The distribution of the sites' pages: at its own address their `/sites/…` pages, and at the sites' own
 * domains (each an alternate name on one certificate) every request rewritten to `/domains/<host>/…`
 * (so a host no site serves reaches only a 404), behind WAF's rate rules.
 */
export function pagesDistribution(
  scope: Construct,
  pages: SitePagesBehavior,
  origin: IOrigin,
  webAclId: string,
  domains?: SiteDomains,
): Distribution {
  if (
    domains &&
    !Token.isUnresolved(domains.certificateArn) &&
    !domains.certificateArn.startsWith('arn:aws:acm:us-east-1:')
  )
    throw new Error(
      `The sites' certificate must be in us-east-1, where CloudFront reads it (not ${domains.certificateArn})`,
    );
  if (domains?.names.length === 0) throw new Error('siteDomains names no domain');
  const rewrite = new CloudFrontFunction(scope, 'SiteDomainPaths', {
    comment: "The pages' own /sites/…; https://<site domain>/<path> → /domains/<site domain>/<path>",
    code: FunctionCode.fromInline(SITE_DOMAIN_FUNCTION_CODE),
    runtime: FunctionRuntime.JS_2_0,
  });
  const distribution = new Distribution(scope, 'SiteEdge', {
    comment: "The sites' pages, at its own address and the sites' own domains: cached a minute",
    ...(domains
      ? {
          domainNames: [...domains.names],
          certificate: Certificate.fromCertificateArn(scope, 'SiteEdgeCertificate', domains.certificateArn),
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
  Validations.of(distribution).acknowledge(
    { id: 'AwsSolutions-CFR1', reason: "A site's readers may be in any country" },
    {
      id: 'AwsSolutions-CFR4',
      reason:
        'The default *.cloudfront.net certificate cannot set a minimum TLS version; with the sites’ domains their certificate sets TLS 1.2',
    },
    {
      id: 'AwsSolutions-CFR3',
      reason:
        "API Gateway's access logs record every request that reaches the origin; WAF's metrics and sampled requests show what it refused",
    },
  );
  return distribution;
}
