import { ApiFailure } from './errors';
import { isFields, isRows } from './replies';

/* The public JSON API, called with the site's key like any other client: same origin, no private endpoints. */

/** Whether a reply is the one a call expects: replies.ts has one for each reply the app reads. */
export type Guard<T> = (reply: unknown) => reply is T;

export interface Api {
  get<T>(path: string, is: Guard<T>): Promise<T>;
  put<T>(path: string, body: unknown, is: Guard<T>): Promise<T>;
  tool<T>(name: string, params: Record<string, unknown>, is: Guard<T>): Promise<T>;
  /** Every row of a table (paged by the API's cursor), up to `max`, each checked with `is`. */
  rows<T>(table: string, is: Guard<T>, where?: Record<string, unknown>, max?: number): Promise<T[]>;
}

export function createApi(key: string): Api {
  async function request<T>(method: 'GET' | 'POST' | 'PUT', path: string, body: unknown, is: Guard<T>): Promise<T> {
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
    if (res.ok) {
      if (is(parsed)) return parsed;
      throw new ApiFailure(
        res.status,
        'unexpected_reply',
        `The API answered ${method} ${path} with a reply the dashboard does not know.`,
      );
    }
    const error = isFields(parsed) ? parsed : {};
    const code = typeof error.code === 'string' ? error.code : `http_${res.status}`;
    const message =
      typeof error.message === 'string' ? error.message : `The API answered ${res.status} ${res.statusText}.`;
    throw new ApiFailure(res.status, code, message, error);
  }
  return {
    get: (path, is) => request('GET', path, undefined, is),
    put: (path, body, is) => request('PUT', path, body, is),
    tool: (name, params, is) => request('POST', `/v1/tools/${encodeURIComponent(name)}`, params, is),
    async rows<T>(table: string, is: Guard<T>, where?: Record<string, unknown>, max = 1000) {
      type Page = { rows: T[]; next_cursor: string | null };
      const isPage = (reply: unknown): reply is Page => isRows(reply) && reply.rows.every(is);
      const rows: T[] = [];
      let cursor: string | null = null;
      do {
        const page: Page = await request(
          'POST',
          '/v1/tools/db_select',
          { table, limit: 200, ...(where ? { where } : {}), ...(cursor ? { cursor } : {}) },
          isPage,
        );
        rows.push(...page.rows);
        cursor = page.next_cursor;
      } while (cursor && rows.length < max);
      return rows;
    },
  };
}
