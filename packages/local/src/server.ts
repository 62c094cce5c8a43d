import { randomUUID } from 'node:crypto';
import { lambdaContext } from './context';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ROUTES, routeKey, type FunctionName } from '@cm/contract';

export type ApiHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** API Gateway's hard limit on an integration; the local server gives handlers the same deadline. */
const ROUTE_TIMEOUT_MS = 29_000;

interface CompiledRoute {
  fn: FunctionName;
  key: string;
  method: string;
  pattern: RegExp;
  names: string[];
}

const compiled: CompiledRoute[] = ROUTES.map((route) => {
  const names: string[] = [];
  const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { fn: route.fn, key: routeKey(route), method: route.method, pattern: new RegExp(`^${source}$`), names };
})
  // As API Gateway does, a route without path parameters wins over one with them.
  .sort((a, b) => a.names.length - b.names.length);

function match(method: string, path: string) {
  for (const route of compiled) {
    if (route.method !== method) continue;
    const m = route.pattern.exec(path);
    if (!m) continue;
    const params = Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(m[i + 1]!)]));
    return { route, params };
  }
  return null;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const isText = (contentType: string | undefined) => !contentType || /json|text|xml|x-www-form-urlencoded/i.test(contentType);

/** The API Gateway HTTP API (payload 2.0) event for a request, as the Lambda would receive it. */
export function toEvent(req: IncomingMessage, body: Buffer, routeKeyValue: string, params: Record<string, string>): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://local');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  headers['x-forwarded-proto'] ??= 'http';
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const text = isText(headers['content-type']);
  const now = new Date();
  const host = headers.host ?? 'localhost';
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
      domainName: host,
      domainPrefix: host.split('.')[0]!,
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
  const body = result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  res.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
  res.end(body);
}

/**
 * The local API Gateway: matches the route table, builds the v2 event and invokes the same handler
 * module the route's Lambda runs. Requests no route matches go to the discovery function's `$default`.
 */
export function createApiServer(handlers: Record<FunctionName, ApiHandler>): Server {
  return createServer(async (req, res) => {
    try {
      const body = await readBody(req);
      const path = new URL(req.url ?? '/', 'http://local').pathname;
      const found = match(req.method ?? 'GET', path);
      const fn: FunctionName = found?.route.fn ?? 'discovery';
      const event = toEvent(req, body, found?.route.key ?? '$default', found?.params ?? {});
      send(res, await handlers[fn](event, lambdaContext(fn, ROUTE_TIMEOUT_MS)));
    } catch (error) {
      console.error(error);
      send(res, {
        statusCode: 500,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ error: 'internal_error', code: 'internal_error', message: 'Internal error' }),
      });
    }
  });
}

export async function listen(server: Server, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}
