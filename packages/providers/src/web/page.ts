import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { addressRefusal, hostRefusal, isPublicAddress } from '@cm/core';
import { resolveAll } from '../resolve';
import { errorField, ProviderError, UrlRefused } from '../errors';
import { PROVIDER_TIMEOUTS, propertyOf } from '@cm/contract';

const PROVIDER = 'web';
const USER_AGENT = 'content-research-api/0.1 (+research url mode)';
const ACCEPT = 'text/html,application/xhtml+xml,text/plain';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const READABLE_TYPES = new Set(['text/html', 'application/xhtml+xml', 'text/plain']);
/** Enough for any article a synthesis step reads; more would only cost tokens. */
const TEXT_LIMIT = 50_000;

export interface PageFetchOptions {
  /** Resolves a host name to all its addresses (default: the system resolver, every address, unsorted). */
  resolve?: (host: string) => Promise<string[]>;
  /** Which addresses may be connected to, resolved or literal (default: public addresses only). */
  isAllowed?: (address: string) => boolean;
  /** Largest body read, in bytes; a larger page is refused (default 2 MB). */
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

/** An https URL without credentials whose host may be connected to, as far as can be told before a lookup. */
function checkedUrl(href: string, isAllowed: (address: string) => boolean, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    throw new UrlRefused(`${href} is not a valid URL`);
  }
  if (url.protocol !== 'https:') throw new UrlRefused(`${url.href} is not an https URL`);
  if (url.username || url.password) throw new UrlRefused(`${url.href} carries credentials`);
  // Node connects to an IP literal without a lookup, so the address policy must be applied here.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const refusal = isIP(host) ? (isAllowed(host) ? null : `${url.hostname} is not a public address`) : hostRefusal(host);
  if (refusal) throw new UrlRefused(refusal);
  return url;
}

/**
 * A socket lookup that refuses a name unless every address it resolves to is allowed, then hands
 * those very addresses to the socket: what is connected to is what was checked, so a DNS answer
 * that changes between a check and the connection (rebinding) cannot slip a private address in.
 */
function checkedLookup(
  resolve: (host: string) => Promise<string[]>,
  isAllowed: (address: string) => boolean,
): LookupFunction {
  return (host, options, callback) => {
    resolve(host).then(
      (addresses) => {
        const refusal = addressRefusal(host, addresses, isAllowed);
        const checked = addresses.map((address) => ({ address, family: isIP(address) }));
        const [first] = checked;
        // addressRefusal refuses a name without addresses: a name that passed has a first one.
        if (refusal !== null || first === undefined)
          return callback(new UrlRefused(refusal ?? `${host} does not resolve`), '');
        // With autoSelectFamily (Node 20's default) the socket asks for all addresses and tries each.
        if (options.all) callback(null, checked);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

/** One GET, answered with the response head; the caller reads or destroys the body. */
function get(
  url: URL,
  lookup: LookupFunction,
  signal: AbortSignal,
  options: PageFetchOptions,
): Promise<IncomingMessage> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host,
        port: options.port ?? (url.port || 443),
        path: url.pathname + url.search,
        headers: { 'user-agent': USER_AGENT, accept: ACCEPT },
        servername: isIP(host) ? undefined : host,
        ca: options.ca === undefined ? undefined : [...rootCertificates, options.ca],
        lookup,
        signal,
        // A pooled socket would skip the lookup: it may have been opened to an address never checked.
        agent: false,
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}

/** The body as utf-8, refused once it grows past `maxBytes`. */
async function readBody(res: IncomingMessage, maxBytes: number): Promise<string> {
  const tooLarge = () => new UrlRefused(`the page is larger than ${maxBytes} bytes`);
  if (Number(res.headers['content-length']) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  // Throwing out of the loop destroys the response, and with it the socket: nothing more is read.
  for await (const chunk of res) {
    if (!Buffer.isBuffer(chunk)) throw new Error('a response read without an encoding yields buffers');
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

const normalize = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, TEXT_LIMIT);

/**
 * Title and readable text: Readability's article, or the whole body when it finds none. The DOM
 * libraries load on the first HTML page: the research worker serves web and reddit modes without them,
 * and its cold start does not pay for them.
 */
async function readable(body: string, type: string): Promise<{ title: string; text: string }> {
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
    maxBytes = 2_000_000,
    timeoutMs = PROVIDER_TIMEOUTS.pageFetchMs,
    maxRedirects = 5,
  } = options;
  const lookup = checkedLookup(resolve, isAllowed);
  const signal = AbortSignal.timeout(timeoutMs);
  let current = checkedUrl(url, isAllowed);
  try {
    for (let redirects = 0; ; redirects++) {
      const res = await get(current, lookup, signal, options);
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
      return { url: current.href, ...(await readable(await readBody(res, maxBytes), type)) };
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
