import * as z from 'zod';
import { ErrorBody } from './errors';
import { HealthQuery, HealthReply } from './common';
import { NotifyInput, NotifyResult } from './notify';
import { TOOLS, ToolListing } from './tools';
import { JobQuery, JobView } from './jobs';
import { UsageQuery, UsageReport } from './usage';
import { BudgetInput, BudgetView } from './budget';
import type { FunctionName } from './functions';
import { SERVICE_LIMITS } from './limits';
import { MCP_PATH } from './mcp';
import {
  ArticleInput,
  ArticleRecord,
  CommunityAnswerCreated,
  CommunityAnswerInput,
  PageList,
  PageListQuery,
  PUBLISH_BODY_LIMIT_BYTES,
  PublishResult,
  QuestionInput,
  QuestionRecord,
  SummaryInput,
} from './pages';

// The function names are the route table's and the tool registry's both; they live below both.
export { FUNCTIONS, WORKERS, functionEnvName, type FunctionName, type WorkerName } from './functions';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Reply {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

export interface Route {
  fn: FunctionName;
  method: HttpMethod;
  path: string;
  auth: boolean;
  summary: string;
  body?: z.ZodType;
  /** The largest body the route takes, in bytes; {@link bodyLimitOf} gives every route's. */
  bodyLimitBytes?: number;
  query?: z.ZodObject;
  replies: Record<number, Reply>;
}

export const routeKey = (r: Pick<Route, 'method' | 'path'>): string => `${r.method} ${r.path}`;

/** The largest body `route` takes, in bytes: its own limit, else the service's. */
export const bodyLimitOf = (route: Pick<Route, 'bodyLimitBytes'> | undefined): number => route?.bodyLimitBytes ?? SERVICE_LIMITS.requestBodyBytes;

/** A dashboard file by name; only the names the build made are found (404 otherwise), so no path can climb out. */
export const DashboardAssetParams = z.object({ file: z.string() });

const html = (description: string): Reply => ({ description, contentType: 'text/html; charset=utf-8' });

const VISITOR_REPLIES: Record<number, Reply> = {
  200: html('The rendered page, with ETag, Last-Modified and Cache-Control'),
  304: { description: 'Not modified: If-None-Match names the current ETag or, without it, If-Modified-Since is not before Last-Modified' },
  404: html('Draft, unpublished or unknown'),
  410: html('Deleted'),
};

/** A JSON-RPC 2.0 message, or a batch of them (the MCP SDK validates them in detail). */
const MCP_MESSAGE = z.union([z.looseObject({ jsonrpc: z.literal('2.0') }), z.array(z.looseObject({ jsonrpc: z.literal('2.0') }))]);
const MCP_405: Reply = { description: 'method_not_allowed: the endpoint is stateless, POST only', schema: ErrorBody };

const PUBLISH_REPLIES: Record<number, Reply> = {
  200: { description: 'Replaced the page with that slug', schema: PublishResult },
  201: { description: 'Created a page', schema: PublishResult },
};

/**
 * Every HTTP route and the Lambda function that serves it. The CDK stack and the local server are both
 * built from this table, and so is the OpenAPI document, so the three cannot drift apart.
 */
export const ROUTES: readonly Route[] = [
  {
    fn: 'discovery',
    method: 'GET',
    path: '/health',
    auth: false,
    summary: 'Liveness; with deep=1, also that the table can be reached',
    query: HealthQuery,
    replies: {
      200: { description: '{"ok":true}', schema: HealthReply },
      503: { description: 'deep=1 and the table cannot be reached: service_unavailable, with Retry-After', schema: ErrorBody },
    },
  },
  {
    fn: 'discovery',
    method: 'GET',
    path: '/openapi.json',
    auth: false,
    summary: 'This document',
    replies: { 200: { description: 'OpenAPI 3.1' } },
  },
  {
    fn: 'publish',
    method: 'POST',
    path: '/articles',
    auth: true,
    summary: 'Publish an article: upsert by slug',
    body: ArticleInput,
    bodyLimitBytes: PUBLISH_BODY_LIMIT_BYTES,
    replies: PUBLISH_REPLIES,
  },
  {
    fn: 'publish',
    method: 'POST',
    path: '/questions',
    auth: true,
    summary: "Publish a question page: upsert by slug; the editor's answer and its sources are replaced whole",
    body: QuestionInput,
    bodyLimitBytes: PUBLISH_BODY_LIMIT_BYTES,
    replies: PUBLISH_REPLIES,
  },
  {
    fn: 'read',
    method: 'GET',
    path: '/articles',
    auth: true,
    summary: 'List articles, newest updated_at first; with ?slug= the one article',
    query: PageListQuery,
    replies: { 200: { description: 'A page of the list, or with slug the article', schema: z.union([PageList, ArticleRecord]) } },
  },
  {
    fn: 'read',
    method: 'GET',
    path: '/articles/{id}',
    auth: true,
    summary: 'Read an article',
    replies: { 200: { description: 'The article', schema: ArticleRecord } },
  },
  {
    fn: 'read',
    method: 'GET',
    path: '/questions',
    auth: true,
    summary: 'List questions, newest updated_at first; with ?slug= the one question',
    query: PageListQuery,
    replies: { 200: { description: 'A page of the list, or with slug the question', schema: z.union([PageList, QuestionRecord]) } },
  },
  {
    fn: 'read',
    method: 'GET',
    path: '/questions/{id}',
    auth: true,
    summary: 'Read a question',
    replies: { 200: { description: 'The question', schema: QuestionRecord } },
  },
  {
    fn: 'question-parts',
    method: 'PUT',
    path: '/questions/{id}/summary',
    auth: true,
    summary: 'Set the site-owned summary of a question (publishes never touch it)',
    body: SummaryInput,
    replies: { 200: { description: 'The question', schema: QuestionRecord } },
  },
  {
    fn: 'question-parts',
    method: 'POST',
    path: '/questions/{id}/answers',
    auth: true,
    summary: "Add a community answer kept beside the editor's answer (publishes never touch it)",
    body: CommunityAnswerInput,
    replies: { 201: { description: 'Stored', schema: CommunityAnswerCreated } },
  },
  {
    fn: 'notify',
    method: 'POST',
    path: '/api/content/notify',
    auth: true,
    summary: 'The site reports that a page the editor service published changed (edit, status change, delete)',
    body: NotifyInput,
    replies: { 200: { description: 'Applied, or ignored as stale or unknown', schema: NotifyResult } },
  },
  {
    fn: 'visitor',
    method: 'GET',
    path: '/sites/{site_id}/articles/{slug}',
    auth: false,
    summary: 'The article as readers see it',
    replies: VISITOR_REPLIES,
  },
  {
    fn: 'visitor',
    method: 'GET',
    path: '/sites/{site_id}/questions/{slug}',
    auth: false,
    summary: 'The question page as readers see it',
    replies: VISITOR_REPLIES,
  },
  {
    fn: 'dashboard',
    method: 'GET',
    path: '/dashboard',
    auth: false,
    summary: 'The dashboard: a page that asks for the API key and calls this API with it; it holds no site data',
    replies: { 200: html('The dashboard app') },
  },
  {
    fn: 'dashboard',
    method: 'GET',
    path: '/dashboard/assets/{file}',
    auth: false,
    summary: "The dashboard's script, styles and icon, named by a hash of their content (cached for a year)",
    replies: {
      200: { description: 'The file', contentType: 'text/javascript; charset=utf-8' },
      404: { description: 'No such file', schema: ErrorBody },
    },
  },
  {
    fn: 'tools',
    method: 'GET',
    path: '/v1/tools',
    auth: true,
    summary: 'The research tools, each with a description and a JSON Schema of its parameters',
    replies: { 200: { description: 'Every tool', schema: ToolListing } },
  },
  ...TOOLS.map((tool): Route => ({
    fn: tool.fn,
    method: 'POST',
    path: `/v1/tools/${tool.name}`,
    auth: true,
    summary: tool.description,
    body: tool.input,
    replies: { 200: { description: `The result of ${tool.name}`, schema: tool.result } },
  })),
  {
    fn: 'tools',
    method: 'POST',
    path: '/v1/tools/{name}',
    auth: true,
    summary: 'Any other name: 404 unknown_tool',
    replies: { 404: { description: 'unknown_tool', schema: ErrorBody } },
  },
  {
    fn: 'jobs',
    method: 'GET',
    path: '/v1/jobs/{job_id}',
    auth: true,
    summary: 'A queued research job: queued, running, succeeded (with its result) or failed; wait_ms waits for it to end',
    query: JobQuery,
    replies: { 200: { description: 'The job', schema: JobView } },
  },
  {
    fn: 'usage',
    method: 'GET',
    path: '/v1/usage',
    auth: true,
    summary: 'Paid provider calls of this site, summed per tool and provider',
    query: UsageQuery,
    replies: { 200: { description: 'The sums', schema: UsageReport } },
  },
  {
    fn: 'usage',
    method: 'GET',
    path: '/v1/budget',
    auth: true,
    summary: "This site's spend limits per UTC day and month, with what each window has spent and reserved and when it resets",
    replies: { 200: { description: 'The budget', schema: BudgetView } },
  },
  {
    fn: 'usage',
    method: 'PUT',
    path: '/v1/budget',
    auth: true,
    summary:
      "Sets this site's daily and monthly spend limits in USD (null: no limit; a field left out is unchanged); paid calls that would pass one are 402 budget_exceeded",
    body: BudgetInput,
    replies: { 200: { description: 'The budget as it is now', schema: BudgetView } },
  },
  {
    fn: 'mcp',
    method: 'POST',
    path: MCP_PATH,
    auth: true,
    summary:
      'The Model Context Protocol endpoint (Streamable HTTP, stateless, JSON responses): the research tools plus get_job, get_usage and find_pages. X-API-Key or Authorization: Bearer',
    body: MCP_MESSAGE,
    replies: {
      200: { description: 'A JSON-RPC response', schema: MCP_MESSAGE },
      202: { description: 'A notification or response, accepted' },
    },
  },
  { fn: 'mcp', method: 'GET', path: MCP_PATH, auth: false, summary: 'No SSE stream: 405 method_not_allowed', replies: { 405: MCP_405 } },
  { fn: 'mcp', method: 'DELETE', path: MCP_PATH, auth: false, summary: 'No sessions: 405 method_not_allowed', replies: { 405: MCP_405 } },
];

export const ERROR_REPLY: Reply = { description: 'Error (the one error shape, docs/api.md#errors)', schema: ErrorBody };
