import { errorField, UrlRefused } from './errors';
import { allowedBy, checkedLookup, checkedUrl, guardedPost, readBody } from './guarded-request';
import { resolveAll } from './resolve';

/*
 * A site's webhook: a URL the site names, so it is called as url research fetches a page (public
 * addresses only, checked on the very addresses connected to, no redirect followed, a short time).
 */

export interface WebhookPostOptions {
  /** Also allow loopback addresses (127.0.0.0/8, ::1): for local development and tests only. */
  allowLoopback?: boolean;
  /** A CA trusted on top of the system ones (tests: the fixture certificate). */
  ca?: string | Buffer;
  resolve?: (host: string) => Promise<string[]>;
  /** Time limit of the POST (default 10 s). */
  timeoutMs?: number;
}

/** What became of a POST that reached the site's server: its status. */
export interface WebhookAnswer {
  status: number;
}

const USER_AGENT = 'content-research-api/0.1 (+budget warnings)';

/**
 * POSTs `payload` as JSON to the site's webhook through the address policy, with `deliveryId` in
 * `Idempotency-Key` (the same on every delivery of one event). A URL the policy refuses throws
 * `UrlRefused`; one that cannot be reached, another error; an answer, whatever its status, is returned.
 */
export async function postWebhook(
  url: string,
  deliveryId: string,
  payload: unknown,
  options: WebhookPostOptions = {},
): Promise<WebhookAnswer> {
  const isAllowed = allowedBy(options.allowLoopback ?? false);
  const target = checkedUrl(url, isAllowed);
  const lookup = checkedLookup(options.resolve ?? resolveAll, isAllowed);
  const signal = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  try {
    const res = await guardedPost(
      target,
      lookup,
      signal,
      { accept: '*/*', userAgent: USER_AGENT, ca: options.ca },
      { type: 'application/json', data: JSON.stringify(payload), headers: { 'idempotency-key': deliveryId } },
    );
    // The answer's body says nothing the service acts on: read a little, so the socket closes cleanly.
    await readBody(res, 16_384).catch(() => undefined);
    return { status: res.statusCode ?? 0 };
  } catch (error) {
    if (error instanceof UrlRefused) throw error;
    throw new Error(`POST ${target.origin} failed: ${String(errorField(error, 'message'))}`);
  }
}
