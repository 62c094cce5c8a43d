import { Bug } from '@cm/core';
import { Annotations, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CfnRoute,
  DomainName,
  HttpApi,
  HttpStage,
  LogGroupLogDestination,
  CfnStage,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { answersHead, ROUTES, type FunctionName } from '@cm/contract';
import { apiAlarms, type Alarms } from './alarms';
import { made } from './function';
import { apiIntegrations } from './integrations';
import { DEFAULT_THROTTLE, HEAVY_TENANTS, routeThrottles } from './throttles';

export { DEFAULT_THROTTLE } from './throttles';

export interface Throttle {
  rateLimit?: number;
  burstLimit?: number;
}

/** A custom domain for the API: on its CloudFront distribution (certificate in us-east-1), else on API Gateway (in the stack's region). */
export interface CustomDomain {
  name: string;
  certificateArn: string;
}

/** One JSON line per request: HTTP API's own variables, no headers or bodies (keys stay out of logs). */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    requestTime: '$context.requestTime',
    routeKey: '$context.routeKey',
    path: '$context.path',
    status: '$context.status',
    responseLength: '$context.responseLength',
    latencyMs: '$context.responseLatency',
    integrationLatencyMs: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
    error: '$context.error.message',
  }),
);

/**
 * The HTTP API: every route of the route table to its function, on one throttled stage that logs
 * each request, with alarms on its 5xx answers and each route group's latency. With `onlyAtDomain` (the
 * domain is CloudFront's origin), the API's own execute-api address answers nothing: a caller cannot go
 * around WAF to it.
 */
export function httpApi(
  scope: Construct,
  functions: ReadonlyMap<FunctionName, NodejsFunction>,
  alarms: Alarms,
  throttle: Throttle = {},
  domain?: CustomDomain,
  onlyAtDomain = false,
): { api: HttpApi; domainName?: DomainName } {
  if (onlyAtDomain && !domain) throw new Error('Turning off the execute-api address takes a custom domain to serve at');
  const limits = {
    rateLimit: throttle.rateLimit ?? DEFAULT_THROTTLE.rateLimit,
    burstLimit: throttle.burstLimit ?? DEFAULT_THROTTLE.burstLimit,
  };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value <= 0)
      throw new Error(`API throttle ${key} must be a positive whole number, not ${value}`);
  }
  if (limits.rateLimit < DEFAULT_THROTTLE.rateLimit)
    Annotations.of(scope).addWarningV2(
      '@cm/infra:api-throttle-below-tenants',
      `-c apiRateLimit=${limits.rateLimit} is under ${DEFAULT_THROTTLE.rateLimit}, what ${HEAVY_TENANTS} tenants at their per-address rate limit make: the route's shared throttle, not WAF's per-tenant limit, refuses them first`,
    );

  // No CORS of API Gateway's: the callers are servers (the editor service, the sites), and visitor pages are
  // plain links; the OAuth paths' CORS is the functions' own (docs/api/oauth.md#browser-based-clients).
  const api = new HttpApi(scope, 'Api', { createDefaultStage: false, disableExecuteApiEndpoint: onlyAtDomain });
  // One integration and one invoke permission per function, not per route (at 117 routes those were 121 of
  // the stack's resources), in a nested stack of their own.
  const integrations = apiIntegrations(scope, api, functions);
  const route = (id: string, routeKey: string, fn: FunctionName) =>
    // Under the ids HttpApi.addRoutes gave them: a route with a new logical ID is a new route, which
    // CloudFormation makes before deleting the old one, and API Gateway refuses two routes of one key.
    new CfnRoute(new Construct(api, id), 'Resource', {
      apiId: api.apiId,
      routeKey,
      authorizationType: 'NONE',
      target: `integrations/${made(integrations, fn).ref}`,
    });
  // Requests no route matches reach the discovery function: a preflight, 405 on an OAuth path, else 404.
  route('DefaultRoute', '$default', 'discovery');
  for (const r of ROUTES) {
    const methods = answersHead(r) ? ['GET', 'HEAD'] : [r.method];
    for (const method of methods) route(`${method}${r.path}`, `${method} ${r.path}`, r.fn);
  }
  Validations.of(api).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason:
      'Each function checks the X-API-Key against the stored key hashes and scopes the request to its site; visitor pages, the dashboard files and discovery are public by design',
  });

  // A regional custom domain (TLS 1.2 at least) mapped to the stage; its DNS record is the deployer's (output ApiDomainTarget).
  const domainName = domain
    ? new DomainName(scope, 'ApiDomain', {
        domainName: domain.name,
        certificate: Certificate.fromCertificateArn(scope, 'ApiCertificate', domain.certificateArn),
        securityPolicy: SecurityPolicy.TLS_1_2,
      })
    : undefined;
  const accessLogs = new LogGroup(scope, 'ApiAccessLogs', {
    retention: RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const stage = new HttpStage(scope, 'ApiStage', {
    httpApi: api,
    stageName: '$default',
    autoDeploy: true,
    throttle: limits,
    accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
    ...(domainName ? { domainMapping: { domainName } } : {}),
  });
  // The routes a rate rule scopes get their own throttle, sized to the per-tenant allowance (throttles.ts);
  // HttpStage has no per-route setting, so on its resource. A route must exist before the stage names it.
  const cfnStage = stage.node.defaultChild;
  if (!(cfnStage instanceof CfnStage)) throw new Bug('HttpStage made no CfnStage');
  cfnStage.routeSettings = Object.fromEntries(
    Object.entries(routeThrottles()).map(([key, { rateLimit, burstLimit }]) => [
      key,
      { ThrottlingRateLimit: rateLimit, ThrottlingBurstLimit: burstLimit },
    ]),
  );
  stage.node.addDependency(api);
  apiAlarms(alarms, api, functions);
  return { api, domainName };
}
