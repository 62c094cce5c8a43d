import { Duration, Fn, Token, Validations } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  OriginRequestPolicy,
  PriceClass,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
  type BehaviorOptions,
  type IOrigin,
} from 'aws-cdk-lib/aws-cloudfront';
import { FunctionUrlOrigin, HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IFunctionUrl } from 'aws-cdk-lib/aws-lambda';
import { Secret, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { ORIGIN_VERIFY_HEADER } from '@cm/contract';
import type { CustomDomain } from './api';
import {
  pagesDistribution,
  redirectToPages,
  siteDomainsEdge,
  sitePages,
  type LegacySiteDomains,
  type SiteDomainsEdge,
} from './site-edge';

/** The web ACLs (EdgeStack, in us-east-1) the distributions carry, by ARN. */
export interface EdgeAcls {
  api: string;
  stream: string;
}

/**
 * A distribution that carries WAF: by default nothing is cached, and every method, header, query and
 * cookie but Host goes to the origin (API Gateway and a function URL answer only to their own host);
 * `additionalBehaviors` (the sites' pages) may cache.
 */
function passThrough(
  scope: Construct,
  id: string,
  origin: IOrigin,
  webAclId: string,
  comment: string,
  options: { domain?: CustomDomain; additionalBehaviors?: Record<string, BehaviorOptions> } = {},
): Distribution {
  const { domain, additionalBehaviors } = options;
  const distribution = new Distribution(scope, id, {
    comment,
    ...(domain
      ? {
          domainNames: [domain.name],
          certificate: Certificate.fromCertificateArn(scope, `${id}Certificate`, domain.certificateArn),
          minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
        }
      : {}),
    defaultBehavior: {
      origin,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
    },
    ...(additionalBehaviors ? { additionalBehaviors } : {}),
    webAclId,
    priceClass: PriceClass.PRICE_CLASS_100,
  });
  Validations.of(distribution).acknowledge(
    {
      id: 'AwsSolutions-CFR1',
      reason: 'The API serves sites and agents in any country; WAF rate rules, not geography, limit callers',
    },
    {
      id: 'AwsSolutions-CFR3',
      reason:
        "API Gateway's access logs record every request that passes; WAF's metrics and sampled requests show what it refused",
    },
    {
      id: 'AwsSolutions-CFR4',
      reason:
        'The default *.cloudfront.net certificate cannot set a minimum TLS version; a custom domain on the distribution sets TLS 1.2',
    },
  );
  return distribution;
}

/**
 * WAF in front of both endpoints: WAF cannot be associated with an HTTP API or a function URL, but it can
 * with a CloudFront distribution in front of each. The stream's origin waits up to 60 s between bytes,
 * CloudFront's most without a quota increase. Each distribution adds the origin secret to what it sends
 * on (`originVerify`: the functions that check it read it at run time), so they refuse a request that
 * reached the API's own URL or the function URL without passing WAF. A custom domain is the API
 * distribution's (its certificate in us-east-1, as CloudFront's must be).
 */
export function edgeDistributions(
  scope: Construct,
  api: HttpApi,
  streamUrl: IFunctionUrl,
  acls: EdgeAcls,
  options: {
    domain?: CustomDomain;
    originVerifyVersion?: number;
    /** API Gateway's own domain to reach the API at, when its execute-api address is turned off. */
    apiOriginHost?: string;
    /** The deprecated aliases of the sites' domains on the pages' distribution, while they move to tenants. */
    legacySiteDomains?: LegacySiteDomains;
  } = {},
): {
  api: Distribution;
  stream: Distribution;
  pages: Distribution;
  siteDomains: SiteDomainsEdge;
  originVerify: ISecret;
} {
  const { domain, originVerifyVersion = 1, apiOriginHost, legacySiteDomains } = options;
  if (!Number.isInteger(originVerifyVersion) || originVerifyVersion < 1)
    throw new Error(`originVerifyVersion must be a whole number from 1, not ${originVerifyVersion}`);
  if (
    domain &&
    !Token.isUnresolved(domain.certificateArn) &&
    !domain.certificateArn.startsWith('arn:aws:acm:us-east-1:')
  )
    throw new Error(
      `The custom domain's certificate must be in us-east-1, where CloudFront reads it (not ${domain.certificateArn})`,
    );
  // A new version is a new secret (a new logical id): everything that names it moves to it on that deploy.
  const secret = new Secret(scope, originVerifyVersion === 1 ? 'OriginVerify' : `OriginVerifyV${originVerifyVersion}`, {
    description: `The ${ORIGIN_VERIFY_HEADER} header CloudFront adds: proof a request passed WAF`,
    generateSecretString: { passwordLength: 48, excludePunctuation: true },
  });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason: 'Read at deploy by CloudFront, at run time by the functions; docs/operations.md says how to replace it',
  });
  // A dynamic reference: CloudFormation resolves it at deploy into CloudFront's origin settings (no
  // function's environment), so the value is in no template.
  const customHeaders = { [ORIGIN_VERIFY_HEADER]: secret.secretValue.unsafeUnwrap() };
  // https://<id>.execute-api.<region>.amazonaws.com → its host, unless that address is turned off.
  const apiHost = apiOriginHost ?? Fn.select(2, Fn.split('/', api.apiEndpoint));
  const apiOrigin = new HttpOrigin(apiHost, { customHeaders });
  const pageBehavior = sitePages(scope);
  const pages = pagesDistribution(scope, pageBehavior, apiOrigin, acls.api, legacySiteDomains);
  return {
    api: passThrough(scope, 'ApiEdge', apiOrigin, acls.api, "The API, behind WAF rate rules; the sites' pages moved", {
      domain,
      additionalBehaviors: { '/sites/*': redirectToPages(scope, apiOrigin, pages.distributionDomainName) },
    }),
    pages,
    siteDomains: siteDomainsEdge(scope, pageBehavior, apiOrigin, acls.api),
    stream: passThrough(
      scope,
      'McpStreamEdge',
      new FunctionUrlOrigin(streamUrl, { readTimeout: Duration.seconds(60), customHeaders }),
      acls.stream,
      'The streaming MCP endpoint, behind WAF rate rules',
    ),
    originVerify: secret,
  };
}
