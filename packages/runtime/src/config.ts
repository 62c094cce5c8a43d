import {
  FUNCTIONS,
  functionEnvName,
  LIMITS,
  queueUrlEnvName,
  RESEARCH_LEASE_MS,
  WORKERS,
  type FunctionName,
  type WorkerName,
} from '@cm/contract';
import * as z from 'zod/mini';
import { INDEXNOW_ENDPOINT } from '@cm/providers/indexnow';
import { decodeEnvironment, numberVariable } from './env.decoder';

/** Configuration from the environment: the same names on Lambda and in the local stack. */
export interface Config {
  tableName: string;
  /** Set for the embedded DynamoDB; unset on AWS. */
  dynamoEndpoint?: string;
  /** DYNAMODB_REQUEST_TIMEOUT_MS: the store client's request timeout, when not the production one. */
  dynamoRequestTimeoutMs?: number;
  /** DYNAMODB_CONNECTION_TIMEOUT_MS: how long the store client waits for a connection, when not the production 1 s. */
  dynamoConnectionTimeoutMs?: number;
  region?: string;
  /** Base URL of this deployment (the API's); by default the URL the request came in on. */
  publicBaseUrl?: string;
  /**
   * `PUBLIC_PAGES_URL`: base URL of the sites' pages under the deployment's address (`<it>/sites/<id>/…`),
   * an origin apart from the API's and the dashboard's; by default the deployment's own base URL.
   */
  publicPagesUrl?: string;
  /**
   * `ORIGIN_VERIFY`: the secret CloudFront sends in `x-origin-verify` (the local stack, tests); set, or
   * named by `originVerifySecret`, a request without it is refused.
   */
  originVerify?: string;
  /** `ORIGIN_VERIFY_SECRET_ARN`: the Secrets Manager secret holding it (AWS), read at run time. */
  originVerifySecret?: string;
  dataforseo: DataForSeoConfig;
  /**
   * `SEARCH_CONSOLE_SECRET`: the name or ARN of the Secrets Manager secret holding the deployment's
   * Google service account key (its JSON); unset: the sandbox's Search Console.
   */
  searchConsoleSecret?: string;
  research: ResearchConfig;
  /** How long a sandbox research job takes (ms). */
  sandboxResearchMs?: number;
  /** How long a research job and its place under the cap are leased (ms): by default just past the worker's time limit. */
  researchLeaseMs: number;
  /** `RESEARCH_SITE_PLACES`: the research places one site holds at once, of the 10 (LIMITS.researchSitePlaces by default). */
  researchSitePlaces: number;
  /** The deployment's daily provider spend cap in USD (`GLOBAL_DAILY_BUDGET_USD`); null: none. */
  globalDailyBudgetUsd: number | null;
  /** `SANDBOX_LIST_PRICES=1`: the sandbox charges the real providers' list prices, marked simulated. */
  sandboxListPrices: boolean;
  /** `MCP_ALLOWED_ORIGINS` (comma-separated): browser origins `POST /mcp` accepts besides loopback and the public base URL. */
  mcpAllowedOrigins: string[];
  /** `MCP_RESULT_MAX_BYTES`: an MCP tool result's JSON above this many bytes is paged or cut. */
  mcpResultMaxBytes: number;
  /** `MCP_APPROVAL_WAIT_MS`: how long a call over the approval threshold waits for the user's answer to its elicitation. */
  mcpApprovalWaitMs: number;
  /** `FUNCTION_<NAME>` (set on the mcp function): the deployed name of each function it may invoke. */
  functionNames: Partial<Record<FunctionName, string>>;
  /** `<QUEUE>_QUEUE_URL` (set on a function that sends to it): each worker queue's SQS URL. */
  queueUrls: Partial<Record<WorkerName, string>>;
  /** `DASHBOARD_DIR`: the built dashboard's folder (the local stack builds it); unset, the one bundled beside the handler. */
  dashboardDir?: string;
  /** `MCP_APPS_DIR`: the built MCP Apps' folder (the local stack builds it); unset, the one bundled beside the handler. */
  mcpAppsDir?: string;
  oauth: OAuthConfig;
  /**
   * `SITE_WEBHOOK_LOOPBACK_DEV_ONLY=1`: a site's webhook may also be on a loopback address (this
   * machine), for local development and tests. Off by default; never on AWS.
   */
  siteWebhookLoopbackDevOnly: boolean;
  /** `SITE_WEBHOOK_CA_FILE`: a CA certificate (PEM file) trusted for sites' webhooks too (tests). */
  siteWebhookCaFile?: string;
  /** `INDEXNOW_ENDPOINT`: where changed URLs are sent (a stand-in in tests); api.indexnow.org by default. */
  indexNowEndpoint: string;
  /** `INDEXNOW_DELAY_SECONDS`: how long a change waits for others before it is sent (LIMITS.indexNowDelaySeconds by default). */
  indexNowDelaySeconds: number;
}

/** The authorization server's settings (the oauth function's; docs/operations.md#oauth-sign-in). */
export interface OAuthConfig {
  /**
   * `OAUTH_SECRET`: the deployment's secret its cookies and consent forms are signed with, and its
   * signing key made from (the local stack keeps one in its data directory).
   */
  secret?: string;
  /** `OAUTH_SECRET_ARN`: the Secrets Manager secret holding it (the stack's `OAuthSecret`), read at run time. */
  secretId?: string;
  /**
   * `OAUTH_CLIENT_METADATA_LOOPBACK_DEV_ONLY=1`: a client metadata document may also be fetched from a
   * loopback address (this machine), for local development and tests. Off by default; never on AWS.
   */
  clientMetadataLoopbackDevOnly: boolean;
  /** `OAUTH_CLIENT_METADATA_CA_FILE`: a CA certificate (PEM file) trusted for client metadata documents too (tests). */
  clientMetadataCaFile?: string;
}

/**
 * DataForSEO credentials: `DATAFORSEO_LOGIN` and `DATAFORSEO_PASSWORD`, or on AWS the name or ARN of
 * a Secrets Manager secret `{"login": …, "password": …}` in `DATAFORSEO_SECRET`. Neither: the sandbox.
 */
export interface DataForSeoConfig {
  login?: string;
  password?: string;
  secret?: string;
  /** Another base URL, e.g. the recorded-response server of the tests. */
  baseUrl?: string;
  /** `DATAFORSEO_TIMEOUT_MS`: one attempt's time limit, if not PROVIDER_TIMEOUTS' (a call's attempts stay within its own). */
  timeoutMs?: number;
  /** `DATAFORSEO_TASK_READY_SECONDS`: when a rank check's posted task is first collected (default 300: the standard queue's normal priority). */
  taskReadySeconds?: number;
}

/**
 * Web research: Tavily's key in `TAVILY_API_KEY`, or on AWS the name or ARN of a Secrets Manager
 * secret `{"api_key": …}` in `TAVILY_SECRET`; synthesis by the Bedrock model `BEDROCK_MODEL_ID`.
 * Without a Tavily key: the sandbox.
 */
export interface ResearchConfig {
  tavilyApiKey?: string;
  tavilySecret?: string;
  /** Another base URL, e.g. the recorded-response server of the tests. */
  tavilyBaseUrl?: string;
  bedrockModelId: string;
  /** Another Bedrock endpoint, e.g. the recorded-response server of the tests. */
  bedrockEndpoint?: string;
}

/**
 * Claude Haiku 4.5, cheap for extraction, through its US inference profile, which keeps the calls in US
 * regions. A deployment outside the US names another profile (`eu.…`, or `global.…`, which routes anywhere).
 */
export const DEFAULT_BEDROCK_MODEL = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';

/**
 * How long a paid call asked about by elicitation waits for the user: time to read the price and
 * answer, and less than the 60 s an MCP SDK client waits for a reply by default.
 */
const MCP_APPROVAL_WAIT_MS = 45_000;
/** The most it may wait: the streaming function's 300 s leave room for the tool's 29 s and a research wait of 25 s after it. */
const MCP_APPROVAL_WAIT_MAX_MS = 180_000;

const milliseconds = numberVariable('whole milliseconds, 1 or more', 1);

/** The environment's numeric variables: a value that does not fit stops the function at start, not at each call. */
const NumericEnvironment = z.object({
  DYNAMODB_REQUEST_TIMEOUT_MS: milliseconds,
  DYNAMODB_CONNECTION_TIMEOUT_MS: milliseconds,
  DATAFORSEO_TIMEOUT_MS: milliseconds,
  DATAFORSEO_TASK_READY_SECONDS: numberVariable('whole seconds, 0 or more', 0),
  SANDBOX_RESEARCH_MS: numberVariable('whole milliseconds, 0 or more', 0),
  RESEARCH_LEASE_MS: milliseconds,
  RESEARCH_SITE_PLACES: numberVariable(
    `a whole number from 1 to ${LIMITS.concurrentResearch}`,
    1,
    LIMITS.concurrentResearch,
  ),
  GLOBAL_DAILY_BUDGET_USD: numberVariable('a number of USD, 0 or more', 0, Infinity, true),
  MCP_RESULT_MAX_BYTES: numberVariable('whole bytes, 1 or more', 1),
  // SQS delays a message by 900 s at most.
  INDEXNOW_DELAY_SECONDS: numberVariable('whole seconds from 0 to 900', 0, 900),
  MCP_APPROVAL_WAIT_MS: numberVariable(
    `whole milliseconds from 1000 to ${MCP_APPROVAL_WAIT_MAX_MS}`,
    1_000,
    MCP_APPROVAL_WAIT_MAX_MS,
  ),
});

/** The entries whose variable is set (an empty one counts as unset). */
function setOnly<K extends string>(entries: [K, string | undefined][]): Partial<Record<K, string>> {
  const set: Partial<Record<K, string>> = {};
  for (const [key, value] of entries) if (value) set[key] = value;
  return set;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const tableName = env.TABLE_NAME;
  if (!tableName) throw new Error('TABLE_NAME is not set');
  const numbers = decodeEnvironment(NumericEnvironment, env);
  return {
    tableName,
    dynamoEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    dynamoRequestTimeoutMs: numbers.DYNAMODB_REQUEST_TIMEOUT_MS,
    dynamoConnectionTimeoutMs: numbers.DYNAMODB_CONNECTION_TIMEOUT_MS,
    region: env.AWS_REGION || undefined,
    publicBaseUrl: env.PUBLIC_BASE_URL?.replace(/\/+$/, '') || undefined,
    publicPagesUrl: env.PUBLIC_PAGES_URL?.replace(/\/+$/, '') || undefined,
    originVerify: env.ORIGIN_VERIFY || undefined,
    originVerifySecret: env.ORIGIN_VERIFY_SECRET_ARN || undefined,
    dataforseo: {
      login: env.DATAFORSEO_LOGIN || undefined,
      password: env.DATAFORSEO_PASSWORD || undefined,
      secret: env.DATAFORSEO_SECRET || undefined,
      baseUrl: env.DATAFORSEO_BASE_URL || undefined,
      timeoutMs: numbers.DATAFORSEO_TIMEOUT_MS,
      taskReadySeconds: numbers.DATAFORSEO_TASK_READY_SECONDS,
    },
    searchConsoleSecret: env.SEARCH_CONSOLE_SECRET || undefined,
    research: {
      tavilyApiKey: env.TAVILY_API_KEY || undefined,
      tavilySecret: env.TAVILY_SECRET || undefined,
      tavilyBaseUrl: env.TAVILY_BASE_URL || undefined,
      bedrockModelId: env.BEDROCK_MODEL_ID || DEFAULT_BEDROCK_MODEL,
      bedrockEndpoint: env.BEDROCK_ENDPOINT || undefined,
    },
    sandboxResearchMs: numbers.SANDBOX_RESEARCH_MS,
    researchLeaseMs: numbers.RESEARCH_LEASE_MS ?? RESEARCH_LEASE_MS,
    researchSitePlaces: numbers.RESEARCH_SITE_PLACES ?? LIMITS.researchSitePlaces,
    globalDailyBudgetUsd: numbers.GLOBAL_DAILY_BUDGET_USD ?? null,
    sandboxListPrices: env.SANDBOX_LIST_PRICES === '1' || env.SANDBOX_LIST_PRICES === 'true',
    mcpAllowedOrigins: (env.MCP_ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    mcpResultMaxBytes: numbers.MCP_RESULT_MAX_BYTES ?? LIMITS.mcpResultBytes,
    mcpApprovalWaitMs: numbers.MCP_APPROVAL_WAIT_MS ?? MCP_APPROVAL_WAIT_MS,
    functionNames: setOnly(FUNCTIONS.map((fn) => [fn, env[functionEnvName(fn)]])),
    queueUrls: setOnly(WORKERS.map((queue) => [queue, env[queueUrlEnvName(queue)]])),
    dashboardDir: env.DASHBOARD_DIR || undefined,
    mcpAppsDir: env.MCP_APPS_DIR || undefined,
    oauth: {
      secret: env.OAUTH_SECRET || undefined,
      secretId: env.OAUTH_SECRET_ARN || undefined,
      clientMetadataLoopbackDevOnly: env.OAUTH_CLIENT_METADATA_LOOPBACK_DEV_ONLY === '1',
      clientMetadataCaFile: env.OAUTH_CLIENT_METADATA_CA_FILE || undefined,
    },
    siteWebhookLoopbackDevOnly: env.SITE_WEBHOOK_LOOPBACK_DEV_ONLY === '1',
    siteWebhookCaFile: env.SITE_WEBHOOK_CA_FILE || undefined,
    indexNowEndpoint: env.INDEXNOW_ENDPOINT || INDEXNOW_ENDPOINT,
    indexNowDelaySeconds: numbers.INDEXNOW_DELAY_SECONDS ?? LIMITS.indexNowDelaySeconds,
  };
}

/**
 * Decodes the environment's numbers when a function is built (on Lambda, its module init), so a variable
 * that does not fit fails the function's start, naming it, rather than every call that reads the config.
 */
export function checkEnvironment(env: NodeJS.ProcessEnv = process.env): void {
  decodeEnvironment(NumericEnvironment, env);
}

let config: Config | undefined;

/** The configuration, read once per container; it needs no client, so a function that only reads it bundles none. */
export const getConfig = (): Config => (config ??= loadConfig());

/** Forget the configuration, so the next call reads the environment again. */
export function resetConfig(): void {
  config = undefined;
}
