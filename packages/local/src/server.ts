import { randomUUID } from 'node:crypto';
import { lambdaContext } from './context';
import {
  createServer,
  maxHeaderSize,
  STATUS_CODES,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { isIP, type Server as NetServer, type Socket } from 'node:net';
import { Bug, domainPath } from '@cm/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import {
  answersHead,
  ApiError,
  bodyLimitOf,
  fieldError,
  MCP_PATH,
  MCP_STREAM_TIMEOUT_SECONDS,
  ROUTES,
  routePattern,
  type FunctionName,
  type Route,
} from '@cm/contract';
import { json, logger, payloadTooLarge } from '@cm/runtime';
import type { McpStreamHandler } from '@cm/runtime/mcp';
import type { RateLimiter } from './rate-limits';

export type ApiHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** API Gateway's hard limit on an integration; the local server gives handlers the same deadline. */
export const ROUTE_TIMEOUT_MS = 29_000;

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
  greedy: boolean;
}

const compiled: CompiledRoute[] = ROUTES.map((route) => ({ route, ...routePattern(route.path) }))
  // As API Gateway does, a route without path parameters wins over one with them, and a greedy one comes last.
  .sort((a, b) => Number(a.greedy) - Number(b.greedy) || a.names.length - b.names.length);

function decodeParam(name: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw fieldError(
      'path',
      name,
      'is not valid percent-encoding (each % takes two hex digits, and the bytes must be UTF-8)',
    );
  }
}

/**
 * The route of the table that serves `method` and `path`, with its decoded path parameters; null when
 * none does. A parameter whose percent-escapes do not decode is `400 validation_failed`.
 */
export function matchRoute(method: string, path: string): { route: Route; params: Record<string, string> } | null {
  // API Gateway routes a path with a slash at the end as the one without.
  const routed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  for (const { route, pattern, names } of compiled) {
    if (route.method !== method && !(method === 'HEAD' && answersHead(route))) continue;
    const m = pattern.exec(routed);
    if (!m) continue;
    const params = names.map((name, i): [string, string] => {
      const raw = m[i + 1];
      // Each name is a group the pattern must match.
      if (raw === undefined) throw new Bug(`${route.path} matched without its {${name}}`);
      return [name, decodeParam(name, raw)];
    });
    return { route, params: Object.fromEntries(params) };
  }
  return null;
}

/** The request's target as a URL (parsed once: the event's path and query come from it too). */
function urlOf(req: IncomingMessage): URL {
  try {
    return new URL(req.url ?? '/', 'http://local');
  } catch {
    throw new ApiError('bad_request', 'The request target is not a valid URL');
  }
}

/** A Host header as HTTP allows it (RFC 9110 §7.2): a host name or address literal, and a port. */
const HOST = /^(?:\[[0-9a-f:.]+\]|[a-z0-9.\-_~%!$&'()*+,;=]+)(?::\d{1,5})?$/i;

/**
 * The request's Host as sent (`host`), which names the deployment in the URLs it builds (visitor pages,
 * the MCP request), and its host name as a URL reads it (`hostname`): one that is no host is refused, as
 * API Gateway refuses it before any function runs. None is localhost.
 */
function hostOf(req: IncomingMessage): { host: string; hostname: string } {
  const host = req.headers.host ?? 'localhost';
  if (HOST.test(host)) {
    try {
      return { host, hostname: new URL(`http://${host}`).hostname };
    } catch {
      // Refused below, as a host the pattern lets through but a URL does not take.
    }
  }
  throw new ApiError('bad_request', 'The Host header is not a host name or address');
}

/**
 * Whether a request's host name is a site's own domain, which the edge passes on as `/domains/<host>/…`
 * (CloudFront answers only the sites' domains it is given, and the API's own): any name with a dot but
 * an address literal. `localhost`, a bare name and an address are the API's own.
 */
function isSiteDomain(hostname: string): boolean {
  return hostname.includes('.') && isIP(hostname.replace(/^\[|\]$/g, '')) === 0;
}

/**
 * The body, or null as soon as it is over `limitBytes` (by its Content-Length, or by what arrived): what
 * arrived is let go and reading stops, so a body over the limit is never held or read whole.
 */
function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length']) > limitBytes) return resolve(null);
    const chunks: Buffer[] = [];
    let bytes = 0;
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limitBytes) {
        req.off('data', onData);
        req.pause();
        return resolve(null);
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const isText = (contentType: string | undefined) =>
  !contentType || /json|text|xml|x-www-form-urlencoded/i.test(contentType);

/** The host a listening server is reached at, as the stack prints it: `localhost:<port>`. */
function ownHost(server: Server): string {
  const address = server.address();
  return typeof address === 'object' && address !== null ? `localhost:${address.port}` : 'localhost';
}

/**
 * The API Gateway HTTP API (payload 2.0) event for a request (its target `url`, its Host `host`), as the
 * Lambda would receive it. Its `domainName` is the server's own host (`ownHost`), as API Gateway's is the
 * domain the API is reached at: a request's Host header, which any client sets, never decides a URL a
 * page names or a cache keeps.
 */
function toEvent(
  req: IncomingMessage,
  url: URL,
  host: string,
  body: Buffer,
  routeKeyValue: string,
  params: Record<string, string>,
  ownHost: string,
  path?: string,
): APIGatewayProxyEventV2 {
  if (path !== undefined) url.pathname = path;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  headers['x-forwarded-proto'] ??= 'http';
  headers.host = host;
  const query: Record<string, string> = {};
  // Without a query the URL's search parameters are not built: most requests have none.
  if (url.search)
    for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const text = isText(headers['content-type']);
  const now = new Date();
  const [domainPrefix = ''] = ownHost.split('.');
  return {
    version: '2.0',
    routeKey: routeKeyValue,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(Object.keys(params).length ? { pathParameters: params } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: ownHost,
      domainPrefix,
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: routeKeyValue,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length ? { body: text ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !text,
  };
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2) {
  const body =
    result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  // A Lambda result's header may be a boolean; the wire has its text, as Node writes a number's.
  const headers: Record<string, string | number | string[]> = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [
      name,
      typeof value === 'boolean' ? String(value) : value,
    ]),
  );
  // As API Gateway answers a payload 2.0 result: each of its cookies is a Set-Cookie header.
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(body);
}

/** Answers in the error shape for the server itself: the request never reaches a handler. */
const refuse = (res: ServerResponse, error: ApiError) => send(res, json(error.status, error.toBody(), error.headers));

/** What a handler threw, answered in the error shape: its own refusal, else a 500 with no detail (the error is logged). */
function answerFailure(res: ServerResponse, error: unknown) {
  if (error instanceof ApiError) return refuse(res, error);
  logger.error('unhandled error', { error });
  send(res, json(500, { error: 'internal_error', code: 'internal_error', message: 'Internal error' }));
}

/** How long a client has to read a refusal before its connection is cut. */
const LINGER_MS = 2_000;

/**
 * What is read and dropped of a refused request's body after the answer: enough for what a client has
 * in flight when the answer reaches it, far from what a client that never stops sends.
 */
export const DRAIN_MAX_BYTES = 8 * 1024 * 1024;
const DRAIN_CHECK_MS = 10;

/**
 * Ends the connection after the answer written to it (a FIN), and cuts it after LINGER_MS at the latest.
 * Meanwhile what the client still sends is read and dropped, up to DRAIN_MAX_BYTES: a socket closed with
 * unread bytes sends a reset, and a reset can destroy the answer at the client before it reads it. A
 * client that sends more than that is cut at once: it is not draining into this process.
 */
function endConnection(socket: Socket, answer = '') {
  socket.end(answer);
  const cut = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  // The HTTP parser drains what arrives (a refused request is dumped); its reads are counted here.
  const start = socket.bytesRead;
  const watch = setInterval(() => {
    if (socket.bytesRead - start > DRAIN_MAX_BYTES) socket.destroy();
  }, DRAIN_CHECK_MS).unref();
  socket.once('close', () => {
    clearTimeout(cut);
    clearInterval(watch);
  });
}

/**
 * Answers `error` on a response with `Connection: close`, then ends the connection, draining what the
 * client still sends. Node ends a `Connection: close` reply with the socket's destroySoon(), which closes
 * it as soon as the reply is written, unread bytes and all: here it ends the connection as above instead.
 */
function refuseAndEnd(socket: Socket, res: ServerResponse, error: ApiError) {
  socket.destroySoon = () => endConnection(socket);
  send(res, json(error.status, error.toBody(), { ...error.headers, connection: 'close' }));
}

/** The error a request got from Node's HTTP parser, in the one error shape. */
function clientErrorOf(error: NodeJS.ErrnoException): ApiError {
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return new ApiError('headers_too_large', `The request line and headers are over ${maxHeaderSize} bytes`);
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new ApiError('request_timeout', 'The request did not arrive in time');
  return new ApiError('bad_request', `The request is not valid HTTP/1.1 (${error.code ?? 'unparseable'})`);
}

/**
 * The local API Gateway: matches the route table, builds the v2 event and invokes the same handler
 * module the route's Lambda runs. Requests no route matches go to the discovery function's `$default`.
 * What never reaches a handler is answered here in the error shape: a malformed path escape (400), a
 * body over the route's limit (413, as soon as it passes the limit) and requests Node cannot parse.
 */
export function createApiServer(handlers: Record<FunctionName, ApiHandler>, limiter?: RateLimiter): Server {
  // The response of the request each socket is carrying, if any.
  const responses = new WeakMap<Socket, ServerResponse>();
  // The server's own host, read when it starts listening rather than asked of its socket for each request.
  let own = 'localhost';
  const server = createServer(async (req, res) => {
    responses.set(req.socket, res);
    res.on('close', () => responses.delete(req.socket));
    try {
      const url = urlOf(req);
      const requested = url.pathname;
      // At a site's own domain, as the edge rewrites it: the site's pages and files, and nothing else of the API.
      const { host, hostname } = hostOf(req);
      const path = isSiteDomain(hostname) ? domainPath(host, requested) : requested;
      // WAF's rate rules come first on AWS: a request over a limit reaches neither API Gateway nor a function.
      const limited = limiter?.check(req, req.method ?? 'GET', requested);
      if (limited) return refuse(res, limited);
      const found = matchRoute(req.method ?? 'GET', path);
      const limitBytes = bodyLimitOf(found?.route);
      const body = await readBody(req, limitBytes);
      // The rest of the body is not kept: the connection ends after the answer, whatever the client still sends.
      if (body === null) return refuseAndEnd(req.socket, res, payloadTooLarge(limitBytes));
      const fn: FunctionName = found?.route.fn ?? 'discovery';
      // As API Gateway names it: a HEAD request has its own route key, served by the GET route's function.
      const event = toEvent(
        req,
        url,
        host,
        body,
        found ? `${req.method ?? 'GET'} ${found.route.path}` : '$default',
        found?.params ?? {},
        own,
        path,
      );
      send(res, await handlers[fn](event, lambdaContext(fn, ROUTE_TIMEOUT_MS)));
    } catch (error) {
      // Answered already (a malformed body, below), or the client is gone.
      if (res.headersSent || req.socket.destroyed) return;
      answerFailure(res, error);
    }
  });
  server.on('listening', () => (own = ownHost(server)));
  // Node answers these with a bare status line by default; the API answers in its error shape while the socket takes it.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const res = responses.get(socket);
    if (!socket.writable || res?.headersSent || error.code === 'ECONNRESET') return socket.destroy();
    const refusal = clientErrorOf(error);
    // A body that turns out malformed: its request's response answers, and the connection ends, as the parser cannot go on.
    if (res) return refuseAndEnd(socket, res, refusal);
    const body = JSON.stringify(refusal.toBody());
    endConnection(
      socket,
      [
        `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
  return server;
}

/**
 * The local Lambda function URL of the streaming MCP endpoint: every request goes to `handler` as a
 * function URL sends it (route key `$default`), and what the handler streams is written as it comes.
 * Its events name the API's host (`apiHost`), as the stack's PUBLIC_BASE_URL does on AWS: the links
 * its results carry are served there.
 */
export function createStreamServer(handler: McpStreamHandler, apiHost: string, limiter?: RateLimiter): Server {
  const limitBytes = bodyLimitOf(matchRoute('POST', MCP_PATH)?.route);
  return createServer(async (req, res) => {
    try {
      const limited = limiter?.check(req, req.method ?? 'GET', urlOf(req).pathname);
      if (limited) return refuse(res, limited);
      const body = await readBody(req, limitBytes);
      if (body === null) return refuseAndEnd(req.socket, res, payloadTooLarge(limitBytes));
      const event = toEvent(
        req,
        new URL(req.url ?? '/', 'http://local'),
        hostOf(req).host,
        body,
        '$default',
        {},
        apiHost,
      );
      await handler(event, lambdaContext('mcp-stream', MCP_STREAM_TIMEOUT_SECONDS * 1000), (status, headers) => {
        res.writeHead(status, headers);
        return res;
      });
    } catch (error) {
      // A reply cut mid-stream cannot take an error: the connection ends instead.
      if (res.headersSent || req.socket.destroyed) return void res.destroy();
      answerFailure(res, error);
    }
  });
}

/**
 * Listens on loopback; resolves with the port. Afterwards an error of the listening socket (an accept
 * that failed, as with EMFILE when the process is out of file descriptors) is logged and the server
 * goes on: with no listener, Node throws it and the whole stack would end.
 */
export async function listen(server: Server, port: number, name: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error: NodeJS.ErrnoException) =>
    logger.error(`${name}: ${error.code ?? 'error'} (${error.message}); still serving`),
  );
  return portOf(server);
}

/** The port a server listening on TCP has. */
export function portOf(server: NetServer): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Bug('The server is not listening on a TCP port');
  return address.port;
}
