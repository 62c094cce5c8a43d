import { isPublicAddress } from '@cm/core';
import { resolveAll } from '../resolve';
import { errorField, ProviderError, UrlRefused } from '../errors';
import { PROVIDER_TIMEOUTS, propertyOf } from '@cm/contract';
import { checkedLookup, checkedUrl, guardedGet, readBody } from '../guarded-request';

const PROVIDER = 'web';
const USER_AGENT = 'content-research-api/0.1 (+research url mode)';
const ACCEPT = 'text/html,application/xhtml+xml,text/plain';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const READABLE_TYPES = new Set(['text/html', 'application/xhtml+xml', 'text/plain']);
/** Enough for any article a synthesis step reads; more would only cost tokens. */
const TEXT_LIMIT = 50_000;
/** The largest page read; its readable text is the research worker's heaviest step (docs/performance.md#memory). */
export const PAGE_MAX_BYTES = 2_000_000;

export interface PageFetchOptions {
  /** Resolves a host name to all its addresses (default: the system resolver, every address, unsorted). */
  resolve?: (host: string) => Promise<string[]>;
  /** Which addresses may be connected to, resolved or literal (default: public addresses only). */
  isAllowed?: (address: string) => boolean;
  /** Largest body read, in bytes; a larger page is refused (default PAGE_MAX_BYTES). */
  maxBytes?: number;
  /** Time limit of the whole fetch, connections and redirects included (default PROVIDER_TIMEOUTS.pageFetchMs). */
  timeoutMs?: number;
  /** Redirects followed before the URL is refused (default 5). */
  maxRedirects?: number;
  /** A CA trusted on top of the system ones (tests: the fixture certificate). */
  ca?: string | Buffer;
  /** Tests only: the port every hop connects to, whatever its URL says (otherwise the URL's port, 443 by default). */
  port?: number;
}

export interface ReadablePage {
  /** The URL finally read, after redirects. */
  url: string;
  title: string;
  /** The readable text, whitespace collapsed, at most 50,000 characters. */
  text: string;
}

const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

const normalize = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, TEXT_LIMIT);

/**
 * Title and readable text: Readability's article, or the whole body when it finds none. The DOM
 * libraries load on the first HTML page: the research worker serves web and reddit modes without them,
 * and its cold start does not pay for them.
 */
export async function readableText(body: string, type: string): Promise<{ title: string; text: string }> {
  if (type === 'text/plain') return { title: '', text: normalize(body) };
  const [{ parseHTML }, { Readability }] = await Promise.all([import('linkedom'), import('@mozilla/readability')]);
  // linkedom's types name the DOM's, which this project does not load: what is read of its document is checked.
  const document = propertyOf(parseHTML(body), 'document');
  const title = textOf(propertyOf(document, 'title'));
  const article = new Readability(document).parse();
  return {
    title: normalize(article?.title || title),
    text: normalize(article?.textContent || textOf(propertyOf(propertyOf(document, 'body'), 'textContent'))),
  };
}

/** Fetches an https page through the address policy, following redirects, and extracts its readable text. */
export async function fetchReadablePage(url: string, options: PageFetchOptions = {}): Promise<ReadablePage> {
  const {
    resolve = resolveAll,
    isAllowed = isPublicAddress,
    maxBytes = PAGE_MAX_BYTES,
    timeoutMs = PROVIDER_TIMEOUTS.pageFetchMs,
    maxRedirects = 5,
  } = options;
  const lookup = checkedLookup(resolve, isAllowed);
  const signal = AbortSignal.timeout(timeoutMs);
  let current = checkedUrl(url, isAllowed);
  try {
    for (let redirects = 0; ; redirects++) {
      const res = await guardedGet(current, lookup, signal, { ...options, accept: ACCEPT, userAgent: USER_AGENT });
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECT_STATUSES.has(status) && location) {
        res.destroy();
        if (redirects >= maxRedirects) throw new UrlRefused(`${url} redirects more than ${maxRedirects} times`);
        current = checkedUrl(location, isAllowed, current);
        continue;
      }
      if (status < 200 || status > 299) {
        res.destroy();
        throw new ProviderError(
          PROVIDER,
          `${current.href} answered HTTP ${status}`,
          status >= 500 || status === 429,
          status,
        );
      }
      // The media type: what comes before any parameters.
      const type = (res.headers['content-type'] ?? '').replace(/;.*/s, '').trim().toLowerCase();
      if (!READABLE_TYPES.has(type)) {
        res.destroy();
        throw new UrlRefused(`not a readable page: ${current.href} is ${type || 'of no declared type'}`);
      }
      return { url: current.href, ...(await readableText((await readBody(res, maxBytes)).toString('utf8'), type)) };
    }
  } catch (error) {
    if (error instanceof UrlRefused || error instanceof ProviderError) throw error;
    if (signal.aborted) throw new ProviderError(PROVIDER, `${url} took longer than ${timeoutMs} ms`, true);
    // A certificate that does not verify stays so; resets, refused connections and DNS outages may pass.
    const code = errorField(error, 'code');
    throw new ProviderError(
      PROVIDER,
      `fetching ${url} failed: ${errorField(error, 'message')}`,
      !code.includes('CERT'),
    );
  }
}
