import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';

/*
 * CloudFront's control plane replayed on loopback: each call answers the next recorded response
 * (test/fixtures/cloudfront) scripted for its method and path, to the real SDK client, which signs,
 * sends and parses as it does against AWS. What was asked is kept to assert on.
 */

const FIXTURES = join(__dirname, '..', 'fixtures', 'cloudfront');

/** A recorded answer: its status, fixture file (none: an empty body) and ETag. */
export interface Recorded {
  status: number;
  fixture?: string;
  etag?: string;
}

/** A request the client made: method, path, If-Match and body. */
export interface Asked {
  call: string;
  ifMatch?: string;
  body: string;
}

export interface CloudFrontReplay {
  client: CloudFrontClient;
  asked: Asked[];
  close(): Promise<void>;
}

/**
 * `script`: for `"<METHOD> <path>"`, the answers in order; a call with none left fails the test with a
 * 599. `domain`: the recordings' shop.example.com said as this domain.
 */
export async function replayCloudFront(
  script: Record<string, Recorded[]>,
  domain = 'shop.example.com',
): Promise<CloudFrontReplay> {
  const asked: Asked[] = [];
  const left = new Map(Object.entries(script).map(([call, answers]) => [call, [...answers]]));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const call = `${req.method} ${decodeURIComponent((req.url ?? '').split('?')[0] ?? '')}`;
      const ifMatch = req.headers['if-match'];
      asked.push({ call, body: Buffer.concat(chunks).toString('utf8'), ...(ifMatch ? { ifMatch } : {}) });
      const answer = left.get(call)?.shift();
      if (!answer) {
        res.writeHead(599).end(`no answer scripted for ${call}`);
        return;
      }
      const body = answer.fixture
        ? readFileSync(join(FIXTURES, answer.fixture), 'utf8').replaceAll('shop.example.com', domain)
        : '';
      res.writeHead(answer.status, {
        'content-type': 'text/xml',
        'x-amz-request-id': '5b6f4c1e-2d3a-4b8c-9e0f-1a2b3c4d5e6f',
        ...(answer.etag ? { etag: answer.etag } : {}),
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new CloudFrontClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
    maxAttempts: 1,
  });
  return {
    client,
    asked,
    close: async () => {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
