import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod/mini';
import { validationError } from '@cm/contract';
import { getConfig } from '../config';
import type { Observation } from '../observability';

/* A request as a route handler sees it, and the addresses its answer names. */

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** What a route handler gets: the event, the caller's site (on authenticated routes) and parsers. */
export interface ApiRequest {
  event: ApiEvent;
  /** The site of the API key; 0 on routes without auth. */
  siteId: number;
  /** The request body, parsed as JSON and validated with a contract schema (`400` otherwise). */
  body<S extends z.ZodMiniType>(schema: S): z.output<S>;
  query<S extends z.ZodMiniType>(schema: S): z.output<S>;
  params<S extends z.ZodMiniType>(schema: S): z.output<S>;
  /** Absolute base URL of this deployment. */
  baseUrl: string;
  /** Absolute base URL of the sites' pages under the deployment's address (`<it>/sites/<id>/…`; pagesBaseUrlOf). */
  pagesBaseUrl: string;
  /**
   * Where the caller's site's pages are (its served domain, else under `baseUrl`): the root of every
   * page URL a reply names. Only on routes that take the API key.
   */
  siteRoot(): string;
  /** This request's log lines and metrics. */
  observation: Observation;
  /**
   * Aborts when the handler must stop (the route's deadline, a little before the 503 it answers): what it
   * still waits on is given up, and the holds it placed cancelled, before the answer goes.
   */
  deadline: AbortSignal;
}

export type RouteHandler = (request: ApiRequest) => Promise<ApiResult>;

export interface State {
  siteId?: number;
  /** The domain the key's site's pages are served at, when one is registered to it. */
  servedDomain?: string | null;
  jsonBody?: unknown;
}

/** `value` parsed with a contract schema, or `400 validation_failed` naming `where` (body, query, path). */
export function validate<S extends z.ZodMiniType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(where, result.error.issues);
  return result.data;
}

/** Base URL of the sites' pages under the deployment's address: PUBLIC_PAGES_URL, else the deployment's own. */
export const pagesBaseUrlOf = (event: ApiEvent): string => getConfig().publicPagesUrl ?? baseUrlOf(event);

/**
 * Absolute base URL of this deployment: PUBLIC_BASE_URL, else the host the request came in on, over
 * http when X-Forwarded-Proto says so and https otherwise: a forwarded scheme that is neither is ignored.
 */
export function baseUrlOf(event: ApiEvent): string {
  const configured = getConfig().publicBaseUrl;
  if (configured) return configured;
  const proto = event.headers['x-forwarded-proto'] === 'http' ? 'http' : 'https';
  return `${proto}://${event.requestContext.domainName}`;
}
