import { PAID_TOOLS } from './tool-heads';
import { OAUTH_ENDPOINTS } from './oauth';
import { MCP_PATH, type HttpMethod } from './route-table';

/*
 * What keeps one tenant, or one slow provider, from taking the others down (docs/architecture/requests.md#isolation):
 * the providers' time limits, the shared circuit breaker's settings, and the per-key and per-IP rate
 * rules. The rate rules are one definition: the CDK stack makes WAF's rate-based rules from it, and the
 * local server emulates the same rules, so both refuse the same requests.
 */

/**
 * How long a provider call may take. A route function has 29 s and answers 503 at 28.5 s, so a
 * DataForSEO call (every attempt and pause together) stops by 20 s, leaving the route time to record
 * and answer; web research runs in the research worker (150 s), where a job's search, page fetch and
 * synthesis all fit: 20 + 10 + 2 × 2 × 25 s = 130 s.
 */
export const PROVIDER_TIMEOUTS = {
  /** One DataForSEO attempt: connection, answer and body (live SERPs take a few seconds). */
  dataforseoAttemptMs: 10_000,
  /** Every attempt and pause of one DataForSEO task together. */
  dataforseoCallMs: 20_000,
  /** One Tavily search attempt. */
  tavilyAttemptMs: 10_000,
  /** Every attempt and pause of one Tavily search together. */
  tavilyCallMs: 20_000,
  /** A url research page fetch, redirects included. */
  pageFetchMs: 10_000,
  /** Connecting to Bedrock (TCP and TLS). */
  bedrockConnectMs: 3_000,
  /** One Bedrock Converse attempt: the model writes up to 2,000 tokens. */
  bedrockAttemptMs: 25_000,
  /** Bedrock attempts per Converse call, the first included. */
  bedrockAttempts: 2,
} as const;

/**
 * The circuit breaker of each paid provider, shared by every function through one small item: after
 * `failures` failures (timeouts, 5xx, no connection) within `windowMs` it opens for `coolDownMs`, and
 * paid calls to that provider answer `503 provider_unavailable` at once; then one call probes it.
 */
export const BREAKER = {
  failures: 5,
  windowMs: 60_000,
  coolDownMs: 30_000,
  /** How long a probe keeps the half-open breaker before another call may probe: past a DataForSEO call. */
  probeMs: 25_000,
  /** How long a function keeps the breaker state it read: a breaker that opens is seen everywhere within this. */
  cacheMs: 2_000,
} as const;

/** Which endpoint a rate rule guards: the API (API Gateway) or the streaming MCP endpoint (the function URL). */
export type RateEndpoint = 'api' | 'mcp-stream';

/** The lengths of a window WAF's rate-based rules accept, in seconds. */
export type RateWindowSeconds = 60 | 120 | 300 | 600;

export interface RateRule {
  /** The WAF rule's name and its metric's. */
  name: string;
  endpoint: RateEndpoint;
  /** What is counted apart: the client's address, or a request header (lower case) with the key. */
  by: 'ip' | { header: 'x-api-key' | 'authorization' };
  /** The requests it counts (method and exact path); none: every request to the endpoint. */
  routes?: readonly { method: HttpMethod; path: string }[];
  /** Requests each address or key may make in a window; the next is `429 rate_limited`. */
  limit: number;
  windowSeconds: RateWindowSeconds;
}

const PAID_ROUTES = PAID_TOOLS.map((tool) => ({ method: 'POST' as const, path: `/v1/tools/${tool}` }));
const PUBLISH_ROUTES = [
  { method: 'POST' as const, path: '/articles' },
  { method: 'POST' as const, path: '/questions' },
];
const STREAM_ROUTES = [{ method: 'POST' as const, path: MCP_PATH }];

/**
 * The rate rules (docs/api.md#rate-limits). Per key: a site's paid tools (an agent's loop), its
 * publishes (a bulk import), and its calls of the streaming endpoint, which each keep a function busy up to
 * 5 minutes. Per address: a flood guard over everything, keys or none.
 */
export const RATE_RULES: readonly RateRule[] = [
  {
    name: 'paid-tools-per-key',
    endpoint: 'api',
    by: { header: 'x-api-key' },
    routes: PAID_ROUTES,
    limit: 120,
    windowSeconds: 60,
  },
  {
    name: 'publish-per-key',
    endpoint: 'api',
    by: { header: 'x-api-key' },
    routes: PUBLISH_ROUTES,
    limit: 600,
    windowSeconds: 60,
  },
  // An agent signed in by OAuth is counted by its token as a key is by the key.
  {
    name: 'paid-tools-per-bearer',
    endpoint: 'api',
    by: { header: 'authorization' },
    routes: PAID_ROUTES,
    limit: 120,
    windowSeconds: 60,
  },
  // Dynamic Client Registration is open, as MCP hosts expect, and a hosted host (Claude.ai, ChatGPT)
  // registers for each fresh connection from a few egress addresses: a flood guard, not a quota. An
  // identical public registration adds no item, and a client no sign-in used expires (docs/api/oauth.md).
  {
    name: 'oauth-registrations-per-ip',
    endpoint: 'api',
    by: 'ip',
    routes: [{ method: 'POST', path: OAUTH_ENDPOINTS.registration }],
    limit: 300,
    windowSeconds: 300,
  },
  { name: 'api-per-ip', endpoint: 'api', by: 'ip', limit: 6_000, windowSeconds: 300 },
  {
    name: 'stream-per-key',
    endpoint: 'mcp-stream',
    by: { header: 'x-api-key' },
    routes: STREAM_ROUTES,
    limit: 120,
    windowSeconds: 60,
  },
  {
    name: 'stream-per-bearer',
    endpoint: 'mcp-stream',
    by: { header: 'authorization' },
    routes: STREAM_ROUTES,
    limit: 120,
    windowSeconds: 60,
  },
  { name: 'stream-per-ip', endpoint: 'mcp-stream', by: 'ip', limit: 600, windowSeconds: 300 },
];

/**
 * The body of a `429 rate_limited`, the same from WAF and from the local server: the error shape, and
 * OAuth's too (`error`, `error_description`: RFC 7591 §3.2.2, RFC 6749 §5.2), as the authorization
 * server's routes answer.
 */
export function rateLimitedBody(rule: Pick<RateRule, 'windowSeconds'>) {
  const message = `Too many requests for this key or address; try again in ${rule.windowSeconds} s`;
  return {
    error: 'rate_limited',
    code: 'rate_limited',
    message,
    error_description: message,
    retry_after_ms: rule.windowSeconds * 1000,
  };
}
