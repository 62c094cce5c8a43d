import { ApiFailure } from './errors';
import type { Rows } from './types';

/* The public JSON API, called with the site's key like any other client: same origin, no private endpoints. */

export interface Api {
  get<T>(path: string): Promise<T>;
  put<T>(path: string, body: unknown): Promise<T>;
  tool<T>(name: string, params: Record<string, unknown>): Promise<T>;
  /** Every row of a table (paged by the API's cursor), up to `max`. */
  rows<T>(table: string, where?: Record<string, unknown>, max?: number): Promise<T[]>;
}

export function createApi(key: string): Api {
  async function request<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
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
      throw new ApiFailure(
        0,
        'network',
        `The API could not be reached (${error instanceof Error ? error.message : String(error)}).`,
      );
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
    const message =
      typeof error.message === 'string' ? error.message : `The API answered ${res.status} ${res.statusText}.`;
    throw new ApiFailure(res.status, code, message, error);
  }
  return {
    get: (path) => request('GET', path),
    put: (path, body) => request('PUT', path, body),
    tool: (name, params) => request('POST', `/v1/tools/${encodeURIComponent(name)}`, params),
    async rows<T>(table: string, where?: Record<string, unknown>, max = 1000) {
      const rows: T[] = [];
      let cursor: string | null = null;
      do {
        const page: Rows = await request('POST', '/v1/tools/db_select', {
          table,
          limit: 200,
          ...(where ? { where } : {}),
          ...(cursor ? { cursor } : {}),
        });
        rows.push(...(page.rows as T[]));
        cursor = page.next_cursor;
      } while (cursor && rows.length < max);
      return rows;
    },
  };
}
