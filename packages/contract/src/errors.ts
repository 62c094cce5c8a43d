import * as z from 'zod/mini';
import { named } from './common';

/** Machine codes of the error table (docs/api.md#errors). */
export const ERROR_STATUS = {
  bad_request: 400,
  invalid_json: 400,
  validation_failed: 400,
  unauthorized: 401,
  site_mismatch: 403,
  insufficient_scope: 403,
  origin_not_allowed: 403,
  edge_required: 403,
  not_found: 404,
  unknown_tool: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  gone: 410,
  competitor_limit_reached: 409,
  already_exists: 409,
  redirect_limit_reached: 409,
  payload_too_large: 413,
  budget_exceeded: 402,
  approval_required: 428,
  concurrency_limit_exceeded: 429,
  quota_exceeded: 429,
  rate_limited: 429,
  headers_too_large: 431,
  provider_error: 502,
  service_unavailable: 503,
  provider_unavailable: 503,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ValidationIssue {
  path: string;
  message: string;
}

export const ErrorBody = named(
  z.looseObject({
    error: z.string().check(z.meta({ description: 'Machine code; the same value as `code`.' })),
    code: z.string(),
    message: z.string(),
    issues: z.optional(z.array(z.object({ path: z.string(), message: z.string() }))),
  }),
  { id: 'Error' },
);

/**
 * The one error every layer throws; the HTTP layer turns it into the one flat error shape (docs/api.md#errors).
 * `extra` carries the code-specific fields (`max_concurrent`, `limit_bytes`, …).
 */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }

  toBody(): Record<string, unknown> {
    return { error: this.code, code: this.code, message: this.message, ...this.extra };
  }
}

/** `body[3].level` from a zod path. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => {
    if (typeof part === 'number') return `${out}[${part}]`;
    return out ? `${out}.${String(part)}` : String(part);
  }, '');
}

/** `400 validation_failed` listing every issue; `where` names the part of the request (body, query, path). */
export function validationError(where: string, issues: readonly z.core.$ZodIssue[]): ApiError {
  const list: ValidationIssue[] = issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
  const message = list.map((i) => (i.path ? `${where}.${i.path}: ${i.message}` : `${where}: ${i.message}`)).join('; ');
  return new ApiError('validation_failed', message, { issues: list });
}

/** `400 validation_failed` for one field: `where` names the part of the request (body, query), `path` the field in it. */
export const fieldError = (where: string, path: string, message: string): ApiError =>
  new ApiError('validation_failed', `${where}.${path}: ${message}`, { issues: [{ path, message }] });

export const notFound = (what = 'Not found'): ApiError => new ApiError('not_found', what);
