import { errorField, UrlRefused } from './errors';
import { allowedBy, checkedLookup, checkedUrl, guardedGet, readBody } from './guarded-request';
import { resolveAll } from './resolve';

/*
 * OAuth clients' metadata documents (Client ID Metadata Documents): a client names an https URL as its
 * client_id, and the authorization server fetches the document there. It is a URL anyone may name, so
 * it is fetched as url research fetches a page: public addresses only, checked on the very addresses
 * connected to, no redirect, a small body, a short time.
 */

export interface ClientMetadataFetchOptions {
  /** Also allow loopback addresses (127.0.0.0/8, ::1): for local development and tests only. */
  allowLoopback?: boolean;
  /** A CA trusted on top of the system ones (tests: the fixture certificate). */
  ca?: string | Buffer;
  resolve?: (host: string) => Promise<string[]>;
  /** The largest document read, in bytes (default 5 KB, as the document's draft suggests). */
  maxBytes?: number;
  /** Time limit of the fetch (default 5 s). */
  timeoutMs?: number;
}

const ACCEPT = 'application/json';
const USER_AGENT = 'content-research-api/0.1 (+oauth client metadata)';

/**
 * GETs a client metadata document through the address policy and answers it as a web Response (what
 * the authorization server's fetch hook returns): its status and body as the client's server sent
 * them, redirects not followed. A URL the policy refuses throws `UrlRefused`.
 */
export async function fetchClientMetadataDocument(
  url: string,
  options: ClientMetadataFetchOptions = {},
): Promise<Response> {
  const isAllowed = allowedBy(options.allowLoopback ?? false);
  const lookup = checkedLookup(options.resolve ?? resolveAll, isAllowed);
  const signal = AbortSignal.timeout(options.timeoutMs ?? 5_000);
  const target = checkedUrl(url, isAllowed);
  try {
    const res = await guardedGet(target, lookup, signal, { accept: ACCEPT, userAgent: USER_AGENT, ca: options.ca });
    const body = await readBody(res, options.maxBytes ?? 5_120);
    const headers = new Headers();
    for (const name of ['content-type', 'cache-control', 'expires']) {
      const value = res.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    return new Response(new Uint8Array(body), { status: res.statusCode ?? 502, headers });
  } catch (error) {
    if (error instanceof UrlRefused) throw error;
    throw new UrlRefused(`fetching ${url} failed: ${String(errorField(error, 'message'))}`);
  }
}
