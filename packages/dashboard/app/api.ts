import type { Rows } from './types';

/* The public JSON API, called with the site's key like any other client: same origin, no private endpoints. */

/** An error reply of the API (`{error, code, message, ...}`), or a request that never got one. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface Api {
  get<T>(path: string): Promise<T>;
  tool<T>(name: string, params: Record<string, unknown>): Promise<T>;
  /** Every row of a table (paged by the API's cursor), up to `max`. */
  rows<T>(table: string, where?: Record<string, unknown>, max?: number): Promise<T[]>;
}

export function createApi(key: string): Api {
  async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(path, {
        method,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch (error) {
      throw new ApiFailure(0, 'network', `The API could not be reached (${error instanceof Error ? error.message : String(error)}).`);
    }
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // API Gateway's own refusals and proxies may answer something else; the status still says what happened.
    }
    if (res.ok) return parsed as T;
    const error = (parsed && typeof parsed === 'object' ? parsed : {}) as Record<string, unknown>;
    const code = typeof error.code === 'string' ? error.code : `http_${res.status}`;
    const message = typeof error.message === 'string' ? error.message : `The API answered ${res.status} ${res.statusText}.`;
    throw new ApiFailure(res.status, code, message, error);
  }
  return {
    get: (path) => request('GET', path),
    tool: (name, params) => request('POST', `/v1/tools/${encodeURIComponent(name)}`, params),
    async rows<T>(table: string, where?: Record<string, unknown>, max = 1000) {
      const rows: T[] = [];
      let cursor: string | null = null;
      do {
        const page: Rows = await request('POST', '/v1/tools/db_select', { table, limit: 200, ...(where ? { where } : {}), ...(cursor ? { cursor } : {}) });
        rows.push(...(page.rows as T[]));
        cursor = page.next_cursor;
      } while (cursor && rows.length < max);
      return rows;
    },
  };
}

/** An error in words for the person looking: the API's message, plus what its extra fields say. */
export function errorInWords(error: unknown): string {
  if (!(error instanceof ApiFailure)) return `Something went wrong in the dashboard: ${error instanceof Error ? error.message : String(error)}`;
  const { body } = error;
  const extra: string[] = [];
  if (error.code === 'quota_exceeded' && typeof body.used === 'number' && typeof body.limit === 'number')
    extra.push(
      `${body.used} of ${body.limit} used${typeof body.resets_at === 'string' ? `; the quota resets ${new Date(body.resets_at).toUTCString()}` : ''}.`,
    );
  if (error.code === 'competitor_limit_reached' && typeof body.max_active === 'number')
    extra.push(`At most ${body.max_active} competitors can be tracked at once: stop monitoring one first.`);
  if (error.code === 'provider_error')
    extra.push(body.retryable === true ? 'The data provider failed; try again later.' : 'The data provider refused the request.');
  const sentence = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
  return [sentence, ...extra].join(' ');
}
