import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnLoggingConfiguration, CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { RATE_RULES, rateLimitedBody, ROUTE_TABLE, type RateEndpoint, type RateRule } from '@cm/contract';
import { DEFAULT_DATAPOINTS, type Alarms } from './alarms';
import { pascal } from './ids';

/** How many of an endpoint's requests WAF refuses a minute, in 2 of 3 minutes, before it is worth a look: a flood, not one agent at its limit. */
const BLOCKED_PER_MINUTE = 60;

const bodyKey = (windowSeconds: number) => `rate-limited-${windowSeconds}`;

const matches = (
  field: CfnWebACL.FieldToMatchProperty,
  value: string,
  positionalConstraint: 'EXACTLY' | 'STARTS_WITH' | 'ENDS_WITH' = 'EXACTLY',
): CfnWebACL.StatementProperty => ({
  byteMatchStatement: {
    fieldToMatch: field,
    positionalConstraint,
    searchString: value,
    textTransformations: [{ priority: 0, type: 'NONE' }],
  },
});
const allOf = (statements: CfnWebACL.StatementProperty[]): CfnWebACL.StatementProperty => ({
  andStatement: { statements },
});
const anyOf = (statements: CfnWebACL.StatementProperty[]): CfnWebACL.StatementProperty => {
  const [only] = statements;
  return statements.length === 1 && only ? only : { orStatement: { statements } };
};

/**
 * A route by method and path: an exact path, or one with a parameter (`/questions/{id}/answers`) by
 * what comes before its first parameter and after its last.
 */
function routeMatch(route: { method: string; path: string }): CfnWebACL.StatementProperty {
  const method = matches({ method: {} }, route.method);
  const [head, ...rest] = route.path.split(/\{[^}]+\}/);
  if (!rest.length) return allOf([method, matches({ uriPath: {} }, route.path)]);
  const tail = rest.at(-1);
  return allOf([
    method,
    matches({ uriPath: {} }, head ?? '', 'STARTS_WITH'),
    ...(tail ? [matches({ uriPath: {} }, tail, 'ENDS_WITH')] : []),
  ]);
}

/** The requests a rule counts: its routes, each by method and exact path. */
const scopeOf = (routes: NonNullable<RateRule['routes']>) => anyOf(routes.map(routeMatch));

/**
 * The routes whose bodies are the sites' documents: publish (`POST /articles`, `POST /questions`) and a
 * question's parts. Their HTML is the content itself, stored as sent and escaped where it is rendered
 * (docs/api/visitor-pages.md), so an exploit's pattern quoted in it is not an attack on this service.
 */
const CONTENT_ROUTES = ROUTE_TABLE.filter((route) => route.fn === 'publish' || route.fn === 'question-parts').filter(
  (route) => route.method !== 'GET',
);

/**
 * The managed groups' rules that read a request's body, by group, each with the label it adds
 * (AWS's rule group docs). A body rule would misread a publish: the body is an article's HTML and text,
 * where a script tag, `../`, a link to `http://192.168.1.1` or a quoted `${jndi:…}` is content, stored as
 * sent and escaped where it is rendered. So each counts, and `body-rules-outside-content` blocks its
 * label on every route but CONTENT_ROUTES (docs/operations.md#waf-managed-rules).
 */
const BODY_RULES = {
  AWSManagedRulesKnownBadInputsRuleSet: {
    JavaDeserializationRCE_BODY: 'awswaf:managed:aws:known-bad-inputs:JavaDeserializationRCE_Body',
    Log4JRCE_BODY: 'awswaf:managed:aws:known-bad-inputs:Log4JRCE_Body',
    ReactJSRCE_BODY: 'awswaf:managed:aws:known-bad-inputs:ReactJSRCE_Body',
  },
  AWSManagedRulesCommonRuleSet: {
    EC2MetaDataSSRF_BODY: 'awswaf:managed:aws:core-rule-set:EC2MetaDataSSRF_Body',
    GenericLFI_BODY: 'awswaf:managed:aws:core-rule-set:GenericLFI_Body',
    GenericRFI_BODY: 'awswaf:managed:aws:core-rule-set:GenericRFI_Body',
    CrossSiteScripting_BODY: 'awswaf:managed:aws:core-rule-set:CrossSiteScripting_Body',
  },
} as const;

/**
 * Bodies over 8 KB: every real article, and a tool's long note. It counts everywhere and blocks
 * nothing: the functions refuse a body over its route's exact limit (413).
 */
const BODY_SIZE_RULE = 'SizeRestrictions_BODY';

/**
 * AWS's managed rule groups, after the rate rules, cheapest first: addresses on Amazon's threat lists,
 * request patterns of known exploits, then the core rule set (OWASP's common attacks). Each blocks
 * with WAF's own 403, but for its body rules (BODY_RULES), which count.
 */
const MANAGED_GROUPS = [
  'AWSManagedRulesAmazonIpReputationList',
  'AWSManagedRulesKnownBadInputsRuleSet',
  'AWSManagedRulesCommonRuleSet',
] as const;

/** The rules of a group that count rather than block. */
function countedRules(name: (typeof MANAGED_GROUPS)[number]): string[] {
  if (name === 'AWSManagedRulesAmazonIpReputationList') return [];
  const bodyRules = Object.keys(BODY_RULES[name]);
  return name === 'AWSManagedRulesCommonRuleSet' ? [BODY_SIZE_RULE, ...bodyRules] : bodyRules;
}

function managedGroup(name: (typeof MANAGED_GROUPS)[number], priority: number): CfnWebACL.RuleProperty {
  const overrides = countedRules(name).map((rule) => ({ name: rule, actionToUse: { count: {} } }));
  return {
    name,
    priority,
    overrideAction: { none: {} },
    statement: {
      managedRuleGroupStatement: {
        vendorName: 'AWS',
        name,
        ...(overrides.length ? { ruleActionOverrides: overrides } : {}),
      },
    },
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: name, sampledRequestsEnabled: true },
  };
}

/**
 * The body rules' verdict, applied on every route but the content routes: one rule, an OR of their
 * labels (1 WCU a label) and the content routes' match, after the groups that add the labels.
 */
function bodyRulesOutsideContent(priority: number): CfnWebACL.RuleProperty {
  const name = 'body-rules-outside-content';
  const labels = Object.values(BODY_RULES).flatMap((group) => Object.values(group));
  return {
    name,
    priority,
    action: { block: {} },
    statement: allOf([
      anyOf(labels.map((key) => ({ labelMatchStatement: { scope: 'LABEL', key } }))),
      { notStatement: { statement: anyOf(CONTENT_ROUTES.map(routeMatch)) } },
    ]),
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: name, sampledRequestsEnabled: true },
  };
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
 * endpoint's rate rules of RATE_RULES, then AWS's managed rule groups, everything else allowed; what
 * it refuses or counts logged; an alarm when it refuses a flood.
 */
export function endpointAcl(scope: Construct, endpoint: RateEndpoint, alarms: Alarms): CfnWebACL {
  const rateRules = RATE_RULES.filter((rule) => rule.endpoint === endpoint).map(wafRule);
  const managed = MANAGED_GROUPS.map((group, index) => managedGroup(group, rateRules.length + index));
  const rules = [...rateRules, ...managed, bodyRulesOutsideContent(rateRules.length + managed.length)];
  const rateWindows = RATE_RULES.filter((rule) => rule.endpoint === endpoint).map((rule) => rule.windowSeconds);
  const id = `${pascal(endpoint)}RateLimits`;
  // Named, as its metrics' WebACL dimension is its name.
  const name = `${Stack.of(scope).stackName}-${endpoint}-rate-limits`;
  const windows = [...new Set(rateWindows)];
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
    rules,
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: id, sampledRequestsEnabled: true },
  });
  aclLogs(scope, acl, endpoint);
  alarms.add(
    `${id}BlockedAlarm`,
    `WAF refuses over ${BLOCKED_PER_MINUTE} requests a minute to the ${endpoint} endpoint (429 rate_limited, or 403 of a managed rule): a key or an address floods it, or a scan; its log names the rule`,
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

/** Request headers that carry a credential: WAF's log keeps their name and replaces their value. */
const REDACTED_HEADERS = ['authorization', 'x-api-key', 'cookie'] as const;

/**
 * WAF's log of what the ACL refused or counted (an allowed request is in API Gateway's access log),
 * in a log group kept a month, with every credential header redacted. WAF writes only to a log group
 * whose name starts `aws-waf-logs-`, named by its ARN without the `:*` a LogGroup's own ARN ends with.
 */
function aclLogs(scope: Construct, acl: CfnWebACL, endpoint: RateEndpoint): void {
  const stack = Stack.of(scope);
  const logGroupName = `aws-waf-logs-${stack.stackName}-${endpoint}`;
  const logs = new LogGroup(scope, `${pascal(endpoint)}WafLogs`, {
    logGroupName,
    retention: RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const logGroupArn = stack.formatArn({
    service: 'logs',
    resource: 'log-group',
    resourceName: logGroupName,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
  const logging = new CfnLoggingConfiguration(scope, `${pascal(endpoint)}WafLogging`, {
    resourceArn: acl.attrArn,
    logDestinationConfigs: [logGroupArn],
    // These two in CloudFormation's own casing: the CDK passes them through as they are.
    redactedFields: REDACTED_HEADERS.map((name) => ({ singleHeader: { Name: name } })),
    loggingFilter: {
      DefaultBehavior: 'DROP',
      Filters: [
        {
          Behavior: 'KEEP',
          Requirement: 'MEETS_ANY',
          Conditions: ['BLOCK', 'COUNT', 'EXCLUDED_AS_COUNT'].map((action) => ({
            ActionCondition: { Action: action },
          })),
        },
      ],
    },
  });
  logging.node.addDependency(logs);
}
