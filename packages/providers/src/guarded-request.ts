import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { addressRange, addressRefusal, Bug, hostRefusal, isPublicAddress } from '@cm/core';
import { UrlRefused } from './errors';

/*
 * The address policy of every request to a URL someone else names (url research's pages, OAuth clients'
 * metadata documents, sites' webhooks): https only, no credentials in the URL, and a connection only to addresses the
 * policy allows (by default public ones), checked on the very addresses the socket connects to.
 */

/** How a guarded request connects and what it asks for. */
export interface GuardedRequestOptions {
  accept: string;
  userAgent: string;
  /** A CA trusted on top of the system ones (tests: the fixture certificate). */
  ca?: string | Buffer;
  /** Tests only: the port every hop connects to, whatever its URL says (otherwise the URL's port, 443 by default). */
  port?: number;
}

/** Whether an address may be connected to: a public one, or with `allowLoopback` (local development and tests) a loopback one. */
export const allowedBy = (allowLoopback: boolean) => (address: string) =>
  isPublicAddress(address) || (allowLoopback && addressRange(address) === 'loopback');

/** An https URL without credentials whose host may be connected to, as far as can be told before a lookup. */
export function checkedUrl(href: string, isAllowed: (address: string) => boolean, base?: URL): URL {
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
export function checkedLookup(
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

/** A body a guarded request sends, with its media type and any headers of its own. */
export interface GuardedBody {
  type: string;
  data: string;
  headers?: Record<string, string>;
}

/** One request, answered with the response head; the caller reads or destroys the body. */
function guardedRequest(
  url: URL,
  lookup: LookupFunction,
  signal: AbortSignal,
  options: GuardedRequestOptions,
  body?: GuardedBody,
): Promise<IncomingMessage> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const headers: Record<string, string> = { 'user-agent': options.userAgent, accept: options.accept };
  if (body)
    Object.assign(headers, body.headers, {
      'content-type': body.type,
      'content-length': String(Buffer.byteLength(body.data)),
    });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host,
        method: body ? 'POST' : 'GET',
        port: options.port ?? (url.port || 443),
        path: url.pathname + url.search,
        headers,
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
    req.end(body?.data);
  });
}

/** One GET, answered with the response head; the caller reads or destroys the body. */
export const guardedGet = (url: URL, lookup: LookupFunction, signal: AbortSignal, options: GuardedRequestOptions) =>
  guardedRequest(url, lookup, signal, options);

/** One POST of `body`, answered with the response head; the caller reads or destroys the body. */
export const guardedPost = (
  url: URL,
  lookup: LookupFunction,
  signal: AbortSignal,
  options: GuardedRequestOptions,
  body: GuardedBody,
) => guardedRequest(url, lookup, signal, options, body);

/** The body, refused once it grows past `maxBytes`. */
export async function readBody(res: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new UrlRefused(`the page is larger than ${maxBytes} bytes`);
  if (Number(res.headers['content-length']) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  // Throwing out of the loop destroys the response, and with it the socket: nothing more is read.
  for await (const chunk of res) {
    if (!Buffer.isBuffer(chunk)) throw new Bug('a response read without an encoding yields buffers');
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
