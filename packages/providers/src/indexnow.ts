import type { IndexNowAnswer } from '@cm/core';

/*
 * IndexNow's endpoint (https://www.indexnow.org/documentation): one POST of a site's changed URLs. It
 * costs nothing and answers with a status only: 200 or 202 took them; 400, 403 (the key file does not
 * match), 422 (URLs not on the host) and 429 (too many requests) say why not. The endpoint is the
 * deployment's setting (INDEXNOW_ENDPOINT), never a site's, so it is called directly.
 */

/** Where URLs are sent unless INDEXNOW_ENDPOINT names another: the shared endpoint, which passes them on to every engine taking part. */
export const INDEXNOW_ENDPOINT = 'https://api.indexnow.org/indexnow';

const USER_AGENT = 'content-research-api/0.1 (+IndexNow)';

/** Retry-After as a number of seconds (the form rate limits use), in ms; null for none or an HTTP date. */
function retryAfterOf(header: string | null): number | null {
  const seconds = header === null ? Number.NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : null;
}

/** POSTs `body` as JSON to `endpoint`: its answer, or status 0 when none came within `timeoutMs`. */
export async function postIndexNow(endpoint: string, body: unknown, timeoutMs = 10_000): Promise<IndexNowAnswer> {
  try {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': USER_AGENT },
      body: JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    // The body says nothing acted on; read it so the connection is let go.
    await response.arrayBuffer().catch(() => undefined);
    return { status: response.status, retryAfterMs: retryAfterOf(response.headers.get('retry-after')) };
  } catch {
    return { status: 0, retryAfterMs: null };
  }
}
