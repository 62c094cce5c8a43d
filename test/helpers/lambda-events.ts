import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, SQSEvent } from 'aws-lambda';
import { routeKey } from '@cm/contract';
import { matchRoute } from '@cm/local';

/* Synthetic Lambda events, as API Gateway and SQS send them, for invoking a bundled handler directly. */

/** The API Gateway HTTP API (payload 2.0) event of a request, routed by the route table as API Gateway routes it. */
export function apiEvent(
  method: string,
  target: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): APIGatewayProxyEventV2 {
  const url = new URL(target, 'https://api.example.com');
  const found = matchRoute(method, url.pathname);
  const key = found ? routeKey(found.route) : '$default';
  const query = Object.fromEntries(url.searchParams);
  const headers: Record<string, string> = {
    host: url.host,
    'x-forwarded-proto': 'https',
    'user-agent': 'node24-test',
    ...options.headers,
  };
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  const now = new Date();
  return {
    version: '2.0',
    routeKey: key,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(url.search ? { queryStringParameters: query } : {}),
    ...(found && Object.keys(found.params).length ? { pathParameters: found.params } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'api',
      domainName: url.host,
      domainPrefix: 'api',
      http: {
        method,
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: headers['user-agent']!,
      },
      requestId: randomUUID(),
      routeKey: key,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(options.body !== undefined
      ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }
      : {}),
    isBase64Encoded: false,
  };
}

/** The SQS event a worker gets for a batch of message bodies from `queue`. */
export function sqsEvent(queue: string, bodies: readonly string[]): SQSEvent {
  return {
    Records: bodies.map((body) => ({
      messageId: randomUUID(),
      receiptHandle: randomUUID(),
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: '000000000000',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queue}`,
      awsRegion: 'us-east-1',
    })),
  };
}
