import { Duration, Stack } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { RATE_RULES, rateLimitedBody, type RateEndpoint, type RateRule } from '@cm/contract';
import { DEFAULT_DATAPOINTS, type Alarms } from './alarms';
import { pascal } from './ids';

/** How many of an endpoint's requests WAF refuses a minute, in 2 of 3 minutes, before it is worth a look: a flood, not one agent at its limit. */
const BLOCKED_PER_MINUTE = 60;

const bodyKey = (windowSeconds: number) => `rate-limited-${windowSeconds}`;

const matches = (field: CfnWebACL.FieldToMatchProperty, value: string): CfnWebACL.StatementProperty => ({
  byteMatchStatement: {
    fieldToMatch: field,
    positionalConstraint: 'EXACTLY',
    searchString: value,
    textTransformations: [{ priority: 0, type: 'NONE' }],
  },
});
const anyOf = (statements: CfnWebACL.StatementProperty[]): CfnWebACL.StatementProperty => {
  const [only] = statements;
  return statements.length === 1 && only ? only : { orStatement: { statements } };
};

/** The requests a rule counts: its routes, each by method and exact path. */
function scopeOf(routes: NonNullable<RateRule['routes']>): CfnWebACL.StatementProperty {
  return anyOf(
    routes.map((route) => ({
      andStatement: { statements: [matches({ method: {} }, route.method), matches({ uriPath: {} }, route.path)] },
    })),
  );
}

/** A rate rule as WAF's rate-based rule: over its limit, `429 rate_limited` with Retry-After, in the error shape. */
function wafRule(rule: RateRule, priority: number): CfnWebACL.RuleProperty {
  return {
    name: rule.name,
    priority,
    action: {
      block: {
        customResponse: {
          responseCode: 429,
          customResponseBodyKey: bodyKey(rule.windowSeconds),
          responseHeaders: [{ name: 'retry-after', value: String(rule.windowSeconds) }],
        },
      },
    },
    statement: {
      rateBasedStatement: {
        limit: rule.limit,
        evaluationWindowSec: rule.windowSeconds,
        aggregateKeyType: rule.by === 'ip' ? 'IP' : 'CUSTOM_KEYS',
        ...(rule.by === 'ip'
          ? {}
          : {
              customKeys: [{ header: { name: rule.by.header, textTransformations: [{ priority: 0, type: 'NONE' }] } }],
            }),
        ...(rule.routes ? { scopeDownStatement: scopeOf(rule.routes) } : {}),
      },
    },
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: rule.name, sampledRequestsEnabled: true },
  };
}

/**
 * The web ACL in front of one endpoint, for a CloudFront distribution (so it is made in us-east-1): the
 * endpoint's rate rules of RATE_RULES, everything else allowed, and an alarm when it refuses a flood.
 */
export function rateLimitAcl(scope: Construct, endpoint: RateEndpoint, alarms: Alarms): CfnWebACL {
  const rules = RATE_RULES.filter((rule) => rule.endpoint === endpoint);
  const id = `${pascal(endpoint)}RateLimits`;
  // Named, as its metrics' WebACL dimension is its name.
  const name = `${Stack.of(scope).stackName}-${endpoint}-rate-limits`;
  const windows = [...new Set(rules.map((rule) => rule.windowSeconds))];
  const acl = new CfnWebACL(scope, id, {
    name,
    scope: 'CLOUDFRONT',
    defaultAction: { allow: {} },
    customResponseBodies: Object.fromEntries(
      windows.map((windowSeconds) => [
        bodyKey(windowSeconds),
        { contentType: 'APPLICATION_JSON', content: JSON.stringify(rateLimitedBody({ windowSeconds })) },
      ]),
    ),
    rules: rules.map(wafRule),
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: id, sampledRequestsEnabled: true },
  });
  alarms.add(
    `${id}BlockedAlarm`,
    `WAF refuses over ${BLOCKED_PER_MINUTE} requests a minute to the ${endpoint} endpoint (429 rate_limited): a key or an address floods it`,
    new Metric({
      namespace: 'AWS/WAFV2',
      metricName: 'BlockedRequests',
      dimensionsMap: { WebACL: name, Rule: 'ALL' },
      statistic: 'Sum',
      period: Duration.minutes(1),
    }),
    BLOCKED_PER_MINUTE,
    // WAF answering 429 is the limit doing its job; the rest are served.
    DEFAULT_DATAPOINTS,
    'warning',
  );
  return acl;
}
