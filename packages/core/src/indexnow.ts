import { INDEXNOW_KEY, isLive, SERVICE_LIMITS, type PageStatus } from '@cm/contract';

/*
 * IndexNow's rules (https://www.indexnow.org/documentation): which URLs a site's change sends, in
 * requests of what size, what an answer means, and the key file that proves the host is the site's.
 */

/** The request body IndexNow takes: every URL on `host`, the site's key and where its key file is. */
export interface IndexNowRequest {
  host: string;
  key: string;
  keyLocation: string;
  urlList: string[];
}

/** What IndexNow answered a request: its status (0: no answer came), and how long it asked to wait (Retry-After), if it did. */
export interface IndexNowAnswer {
  status: number;
  retryAfterMs: number | null;
}

/**
 * Whether a publish changed what readers reach at the page's URL: it went live or was taken down, or it
 * is live and its content is not what it was. A republish of the same content, or a change of a page
 * readers cannot reach before or after, is not.
 */
export function changedForReaders(
  before: { status: PageStatus; deleted: boolean } | null,
  after: { status: PageStatus; deleted: boolean },
  contentChanged: boolean,
): boolean {
  const wasLive = before !== null && isLive(before.status, before.deleted);
  const live = isLive(after.status, after.deleted);
  return wasLive !== live || (live && contentChanged);
}

/** The key a site's key file is named by (`<key>.txt`), or null when the name is no key file's. */
export function keyOfFile(file: string): string | null {
  if (!file.endsWith('.txt')) return null;
  const key = file.slice(0, -'.txt'.length);
  return INDEXNOW_KEY.test(key) ? key : null;
}

/**
 * The domain a site's root is at when it is the site's own (`https://<domain>`, siteRoot), or null for
 * a root under the deployment's address (`<base>/sites/<id>`: a path, and no host of the site's).
 */
export function ownHost(root: string): string | null {
  const url = URL.canParse(root) ? new URL(root) : null;
  return url?.protocol === 'https:' && url.pathname === '/' ? url.hostname : null;
}

/** The URLs of `urls` on the site's own domain `host` (https, that host exactly), each once, in order. */
export const urlsOnHost = (host: string, urls: readonly string[]): string[] =>
  [...new Set(urls)].filter((url) => URL.canParse(url) && new URL(url).origin === `https://${host}`);

/** The requests that send `urls` (all on `host`): up to indexNowUrlsPerRequest URLs each, in order. */
export function indexNowRequests(
  host: string,
  key: string,
  urls: readonly string[],
  perRequest: number = SERVICE_LIMITS.indexNowUrlsPerRequest,
): IndexNowRequest[] {
  const requests: IndexNowRequest[] = [];
  for (let i = 0; i < urls.length; i += perRequest)
    requests.push({ host, key, keyLocation: `https://${host}/${key}.txt`, urlList: urls.slice(i, i + perRequest) });
  return requests;
}

/**
 * Whether an answer is worth sending again later: 429 (too many requests) and 5xx, and no answer at all
 * (0). 200 and 202 took the URLs; 400, 403 (the key file does not match) and 422 (URLs not on the host)
 * would be refused again.
 */
export const retryableAnswer = (status: number): boolean => status === 0 || status === 429 || status >= 500;
