import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BREAKER, LIMITS, PROVIDER_TIMEOUTS, QUEUES, RATE_RULES, SERVICE_LIMITS, toolFunction } from '@cm/contract';
import { KEY_CACHE_MS } from '@cm/runtime';
import { ROUTE_TIMEOUT_MS } from '@cm/local';
import { STORE_CLIENT_LIMITS } from '@cm/store';
import { RESERVED_CONCURRENCY } from '../../infra/constructs/concurrency';
import { AWS_PRICES } from '../../bench/bill/prices';
import { ACCOUNT_API_LIMITS, HEAVY_TENANTS } from '../../infra/constructs/throttles';
import { KEEP_RESULT_SECONDS } from '../../packages/runtime/src/mcp/paging';
import { constantIn, expectOnlyFigures, prose, thousands } from './doc-text';

/*
 * docs/architecture/requests.md's figures are the code's: each claim below is a phrase made from the
 * code's constants, and the page states no other figure unless it is listed as one the code does not make
 * (an AWS price or quota, a measurement, history), with why. (The route functions' 29 s is the local
 * stack's ROUTE_TIMEOUT_MS, which doc-figures.test.ts compares with the template's; the workers' time
 * limits are QUEUES', which the template's are: doc-figures.test.ts's queue table.)
 */
const page = prose('architecture/requests.md');
const raw = readFileSync(join(__dirname, '..', '..', 'docs', 'architecture', 'requests.md'), 'utf8');

const ROUTER = 'packages/runtime/src/http/router.ts';
const DEADLINE_MARGIN_S = constantIn(ROUTER, 'DEADLINE_MARGIN_MS') / 1000;
const ABANDON_MARGIN_S = constantIn(ROUTER, 'ABANDON_MARGIN_MS') / 1000;
const FAILED_DOCUMENT_S = constantIn('packages/runtime/src/oauth/client-documents.ts', 'FAILURE_MEMORY_MS') / 1000;
const UNUSED_CLIENT_DAYS = constantIn('packages/runtime/src/oauth/adapter.ts', 'UNUSED_CLIENT_SECONDS') / 86_400;

const REFRESH_TOKEN_DAYS = Number(
  /RefreshToken: (\d+) \* DAY/.exec(
    readFileSync(join(__dirname, '../../packages/runtime/src/oauth/provider.ts'), 'utf8'),
  )![1],
);
/** The managed groups' rules in each web ACL: the three groups and the rule of their labels. */
const MANAGED_RULES = 4;
/** The visitor load the page prices WAF's inspection at: page views a site a day. */
const PAGE_VIEWS_A_DAY = 1_000;

const rule = (name: string) => RATE_RULES.find((r) => r.name === name)!;
const minutes = (seconds: number) => seconds / 60;
const ROUTE_TIMEOUT = ROUTE_TIMEOUT_MS / 1000;
const RESEARCH_WORKER = QUEUES.research.timeoutSeconds;
const PAID_RESERVED = RESERVED_CONCURRENCY[toolFunction('get_keywords')]!;

describe('docs/architecture/requests.md', () => {
  it('states only figures the code makes', () => {
    const T = PROVIDER_TIMEOUTS;
    const [paid, publish, stream, apiIp, streamIp, registrations] = [
      'paid-tools-per-key',
      'publish-per-key',
      'stream-per-key',
      'api-per-ip',
      'stream-per-ip',
      'oauth-registrations-per-ip',
    ].map(rule);
    expect([paid, publish, stream].map((r) => r!.windowSeconds)).toEqual([60, 60, 60]);
    expect(streamIp!.windowSeconds).toBe(apiIp!.windowSeconds);
    expect(T.tavilyAttemptMs).toBe(T.dataforseoAttemptMs);
    const job = T.tavilyCallMs + T.pageFetchMs + 2 * T.bedrockAttempts * T.bedrockAttemptMs;
    expect(job / 1000).toBeLessThan(RESEARCH_WORKER);
    // The costs of a path, counted on the local stack; test/e2e/oauth.test.ts asserts its first row's.
    const table = page.slice(page.indexOf('| path | requests |'), page.indexOf(' Where it stops.'));
    expect(table).toContain('| a call with a token, first seen by the container | 3 in 2 round trips');
    expectOnlyFigures(
      // The list items' numbers out.
      page.replace(/ \d\. (?=[*A-Z`])/g, ' '),
      [
        // The route's deadline, and the handler's before it.
        `(the function's time less ${DEADLINE_MARGIN_S} s;`,
        `\`api()\` answers \`503\` ${DEADLINE_MARGIN_S} s before the function's time ends; ${ABANDON_MARGIN_S} s before that`,
        // The store's client.
        `waits at most ${STORE_CLIENT_LIMITS.connectionTimeoutMs / 1000} s for a connection and ${STORE_CLIENT_LIMITS.requestTimeoutMs / 1000} s for a silent request, and makes ${STORE_CLIENT_LIMITS.maxAttempts} attempts in all`,
        `with \`Retry-After: ${SERVICE_LIMITS.unavailableRetryAfterMs / 1000}\``,
        // Isolation.
        `per key, ${paid!.limit} paid-tool calls and ${publish!.limit} publishes a minute and ${stream!.limit} streaming calls; per address, ${thousands(apiIp!.limit)} API and ${streamIp!.limit} stream requests in ${minutes(apiIp!.windowSeconds)} minutes`,
        `(each paid tool ${PAID_RESERVED}, \`research\` ${RESERVED_CONCURRENCY[toolFunction('research')]} for its waits, \`mcp-stream\` ${RESERVED_CONCURRENCY['mcp-stream']}, \`mcp\` ${RESERVED_CONCURRENCY.mcp};`,
        `each DataForSEO and Tavily attempt has ${T.dataforseoAttemptMs / 1000} s for its connection`,
        `by ${T.dataforseoCallMs / 1000} s; Bedrock's client closes a stream silent for ${T.bedrockAttemptMs / 1000} s, ${T.bedrockAttempts} attempts`,
        `the url fetch has ${T.pageFetchMs / 1000} s`,
        `answers within the route's ${ROUTE_TIMEOUT} s`,
        `fit the worker's ${RESEARCH_WORKER} s (${T.tavilyCallMs / 1000} + ${T.pageFetchMs / 1000} + 2 × ${T.bedrockAttempts} × ${T.bedrockAttemptMs / 1000} = ${job / 1000} s)`,
        `${BREAKER.failures} failures within ${BREAKER.windowMs / 1000} s open it for ${BREAKER.coolDownMs / 1000} s`,
        `opens it for another ${BREAKER.coolDownMs / 1000} s`,
        `for ${BREAKER.cacheMs / 1000} s, so an opening is seen everywhere within ${BREAKER.cacheMs / 1000} s and a closed breaker costs one GetItem per provider per ${BREAKER.cacheMs / 1000} s per container`,
        `to expire in ${LIMITS.budgetHoldMs / 60_000} minutes`,
        // Tenant limits at the edge.
        `\`HEAVY_TENANTS\` (${HEAVY_TENANTS}) callers`,
        `and why ${HEAVY_TENANTS} in`,
        `reached by a ${HEAVY_TENANTS + 1}st tenant at its whole allowance`,
        `(for publish, ${HEAVY_TENANTS + 1} keys each publishing ${publish!.limit / publish!.windowSeconds} pages a second)`,
        `the account's ${thousands(ACCOUNT_API_LIMITS.rateLimit)} requests a second, shared with its other APIs, caps all routes together and would allow ${ACCOUNT_API_LIMITS.rateLimit / (apiIp!.limit / apiIp!.windowSeconds)} such tenants`,
        // MCP.
        `any other is kept whole for a day`,
        `The invoked function's ${ROUTE_TIMEOUT} s limit, and the ${LIMITS.waitMsMax / 1000} s most tools wait`,
        // OAuth.
        `then none for ${KEY_CACHE_MS / 1000} s`,
        `past its first ${KEY_CACHE_MS / 1000} s in a container`,
        `(a failed fetch ${FAILED_DOCUMENT_S} s)`,
        `which expires after ${UNUSED_CLIENT_DAYS} days unless a sign-in uses it`,
        `held to ${registrations!.limit} registrations per address in ${minutes(registrations!.windowSeconds)} minutes`,
        // OAuth's lifetimes.
        `kept until its own ${REFRESH_TOKEN_DAYS} days end`,
        `up to about ${REFRESH_TOKEN_DAYS * 24} such items`,
        // WAF's price, AWS's (bench/bill/prices.ts).
        `$${AWS_PRICES.wafWebAcl.usd} a month, $${AWS_PRICES.wafRule.usd} a month per rule`,
        `and $${(AWS_PRICES.wafRequest.usd * 1e6).toFixed(2)} per million requests it inspects`,
        `$${MANAGED_RULES * AWS_PRICES.wafRule.usd * 2} a month for both`,
        `are ${(10_000 * PAGE_VIEWS_A_DAY * 30) / 1e6} million requests a month, $${Math.round(10_000 * PAGE_VIEWS_A_DAY * 30 * AWS_PRICES.wafRequest.usd)} of inspection`,
        `to their $${(AWS_PRICES.wafRequest.usd * 1e6).toFixed(2)} of inspection`,
      ],
      {
        [table]: 'counted on the local stack with the sandbox (the first row asserted by test/e2e/oauth.test.ts)',
        // Names with digits.
        'payload 2.0': "API Gateway's event format",
        'OAuth 2.1': "the protocol's version",
        'SHA-256': "a hash's name",
        S256: "PKCE's method",
        'RFC 8707, RFC 7591, RFC 7009, RFC 9207': 'RFC numbers',
        'v2 SDK': "the MCP SDK's major version",
        'its v1 authorization-server helpers': "the MCP SDK's major version",
        '2026-07-28': "MCP's protocol versions",
        '2025': "MCP's protocol versions",
        'us-east-1': 'a region',
        '5xx': 'the class of statuses',
        '4xx': 'the class of statuses',
        '2xx': 'the class of statuses',
        'at what was billed (0)': 'nothing billed',
        // AWS's limits, quotas and prices.
        "(a permission per route was 121 of the stack's resources, past CloudFormation's 500 with 117 routes;":
          "history, and CloudFormation's limit",
        'within the 1,500 capacity units the price includes (the three groups take 925 of them: 25, 200 and 700; the rate rules and the label rule under 250 more); past that, $0.20 per million more per 500 units':
          "WAF's price and its managed groups' capacity units, AWS's",
        'The managed groups add 4 rules': 'the three groups of infra/constructs/firewall.ts and their label rule',
        "about 2 KB each at CloudWatch Logs' $0.50 per GB for vended logs (about $1 per million logged) and $0.03 per GB-month kept: with every publish over 8 KB counted, 10,000 sites publishing 10 pages a day log about 3 million a month, 6 GB, about $3":
          "CloudWatch Logs' prices, WAF's 8 KB body rule, a log line's size and the spec's scale: an estimate",
        'a million refused requests add about $1 of logs': 'the estimate above',
        "keep a call inside API Gateway's 30 s": "API Gateway's integration limit",
        '(1 MB a page)': "DynamoDB's page of a Query",
        // The spec's scale, and a load assumed at it.
        [`10,000 sites at ${thousands(PAGE_VIEWS_A_DAY)} page views a day`]:
          "the spec's scale and a visitor load assumed",
        '10,000 sites': "the spec's scale",
        // Measured.
        'fails a call within about 7 s':
          "the attempts' limits and the SDK's backoff between them (test/e2e/outage.test.ts bounds it)",
        '(under 2 KB)': "an item's size, measured",
        '752 KB': 'measured by the bundle report',
        '330 KB of it oidc-provider': 'measured by the bundle report',
        'mime-db, 287 KB': 'measured by the bundle report',
      },
    );
    expect(KEEP_RESULT_SECONDS).toBe(86_400);
    // The diagram's attempt, call and deadline.
    expect(raw).toContain(
      `provider attempt (${T.dataforseoAttemptMs / 1000} s; a call ${T.dataforseoCallMs / 1000} s)`,
    );
    expect(raw).toContain(`deadline (${ROUTE_TIMEOUT} s − ${DEADLINE_MARGIN_S + ABANDON_MARGIN_S} s)`);
  });
});
