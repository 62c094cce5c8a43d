import { Duration, Fn, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  OriginRequestPolicy,
  PriceClass,
  ViewerProtocolPolicy,
  type IOrigin,
} from 'aws-cdk-lib/aws-cloudfront';
import { FunctionUrlOrigin, HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IFunctionUrl } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';

/** The web ACLs (EdgeStack, in us-east-1) the distributions carry, by ARN. */
export interface EdgeAcls {
  api: string;
  stream: string;
}

/**
 * A distribution that only carries WAF: nothing is cached (the CDN of visitor pages comes later), every
 * method, header, query and cookie but Host goes to the origin (API Gateway and a function URL answer
 * only to their own host).
 */
function passThrough(scope: Construct, id: string, origin: IOrigin, webAclId: string, comment: string): Distribution {
  const distribution = new Distribution(scope, id, {
    comment,
    defaultBehavior: {
      origin,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
    },
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
        'The default *.cloudfront.net certificate cannot set a minimum TLS version; a custom domain on the distribution (the visitor-page CDN) will',
    },
  );
  return distribution;
}

/**
 * WAF in front of both endpoints: WAF cannot be associated with an HTTP API or a function URL, but it can
 * with a CloudFront distribution in front of each. The stream's origin waits up to 60 s between bytes,
 * CloudFront's most without a quota increase.
 */
export function edgeDistributions(
  scope: Construct,
  api: HttpApi,
  streamUrl: IFunctionUrl,
  acls: EdgeAcls,
): { api: Distribution; stream: Distribution } {
  // https://<id>.execute-api.<region>.amazonaws.com → its host.
  const apiHost = Fn.select(2, Fn.split('/', api.apiEndpoint));
  return {
    api: passThrough(scope, 'ApiEdge', new HttpOrigin(apiHost), acls.api, 'The API, behind WAF rate rules'),
    stream: passThrough(
      scope,
      'McpStreamEdge',
      new FunctionUrlOrigin(streamUrl, { readTimeout: Duration.seconds(60) }),
      acls.stream,
      'The streaming MCP endpoint, behind WAF rate rules',
    ),
  };
}
