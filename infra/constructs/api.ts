import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  DomainName,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { answersHead, FUNCTIONS, ROUTES, type FunctionName } from '@cm/contract';
import { apiAlarms, type Alarms } from './alarms';
import { made } from './function';
import { pascal } from './ids';

/** Requests per second across the API, steady and in a burst, unless the deployment says otherwise. */
export const DEFAULT_THROTTLE = { rateLimit: 100, burstLimit: 200 } as const;

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
 * each request, with alarms on its 5xx answers and each route group's latency.
 */
export function httpApi(
  scope: Construct,
  functions: ReadonlyMap<FunctionName, NodejsFunction>,
  alarms: Alarms,
  throttle: Throttle = {},
  domain?: CustomDomain,
): { api: HttpApi; domainName?: DomainName } {
  const limits = {
    rateLimit: throttle.rateLimit ?? DEFAULT_THROTTLE.rateLimit,
    burstLimit: throttle.burstLimit ?? DEFAULT_THROTTLE.burstLimit,
  };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value <= 0)
      throw new Error(`API throttle ${key} must be a positive whole number, not ${value}`);
  }

  // One invoke permission per function for this API's routes, not one per route: at 117 routes those
  // were 121 of the stack's resources, past CloudFormation's 500 once rank tracking and OAuth came.
  const integrations = new Map(
    FUNCTIONS.map((fn) => [
      fn,
      new HttpLambdaIntegration(`${pascal(fn)}Integration`, made(functions, fn), { scopePermissionToRoute: false }),
    ]),
  );
  // No CORS of API Gateway's: the callers are servers (the editor service, the sites), and visitor pages are
  // plain links; the OAuth paths' CORS is the functions' own (docs/api/oauth.md#browser-based-clients).
  // Requests no route matches reach the discovery function: a preflight, 405 on an OAuth path, else 404.
  const api = new HttpApi(scope, 'Api', {
    defaultIntegration: integrations.get('discovery'),
    createDefaultStage: false,
  });
  for (const route of ROUTES) {
    const methods = answersHead(route) ? [HttpMethod.GET, HttpMethod.HEAD] : [HttpMethod[route.method]];
    api.addRoutes({ path: route.path, methods, integration: made(integrations, route.fn) });
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
  new HttpStage(scope, 'ApiStage', {
    httpApi: api,
    stageName: '$default',
    autoDeploy: true,
    throttle: limits,
    accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
    ...(domainName ? { domainMapping: { domainName } } : {}),
  });
  apiAlarms(alarms, api, functions);
  return { api, domainName };
}
