import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  createServer as createHttp2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A recorded response: the body file under test/fixtures/web, its HTTP status and any headers (e.g. `x-amzn-errortype`). */
export interface WebRecording {
  fixture: string;
  status?: number;
  headers?: Record<string, string>;
}

export interface WebRequest {
  /** The path as sent, still URL-encoded (Bedrock encodes the model id: `:` is `%3A`). */
  rawPath: string;
  /** The decoded path, which answers are keyed by. */
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface WebReplay {
  /** HTTP/1.1 base URL, for Tavily's `baseUrl`: fetch speaks HTTP/1.1. */
  url: string;
  /** Cleartext HTTP/2 base URL, for Bedrock's `endpoint`: the Bedrock runtime client speaks HTTP/2 only. */
  http2Url: string;
  /** Answers for a decoded path (`/search`, `/model/{modelId}/converse`), in order; the last one repeats. */
  answer(path: string, ...recordings: WebRecording[]): void;
  requests: WebRequest[];
  close(): Promise<void>;
}

const FIXTURES = join(__dirname, '..', 'fixtures', 'web');
export const webFixture = (name: string): any => JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8'));

/** Bedrock's Converse path for a model id, decoded as the replay keys it. */
export const conversePath = (modelId: string): string => `/model/${modelId}/converse`;

/** Loopback servers replaying recorded Tavily and Bedrock responses: the adapters never reach the network. */
export async function startWebReplay(): Promise<WebReplay> {
  const answers = new Map<string, WebRecording[]>();
  const requests: WebRequest[] = [];
  const handle = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawPath = (req.url ?? '').split('?')[0]!;
      const path = decodeURIComponent(rawPath);
      requests.push({
        rawPath,
        path,
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'),
      });
      const queue = answers.get(path);
      const recording = queue && (queue.length > 1 ? queue.shift()! : queue[0]);
      const status = recording ? (recording.status ?? 200) : 404;
      res.writeHead(status, { 'content-type': 'application/json', ...recording?.headers });
      res.end(
        recording
          ? readFileSync(join(FIXTURES, `${recording.fixture}.json`))
          : JSON.stringify({ message: `no recording for ${path}` }),
      );
    });
  };
  const http1 = createServer(handle);
  const http2 = createHttp2Server(handle);
  // The SDK keeps its HTTP/2 sessions open; closing the server waits for them unless they are ended.
  const sessions = new Set<ServerHttp2Session>();
  http2.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  const listen = async (server: typeof http1 | typeof http2) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  return {
    url: await listen(http1),
    http2Url: await listen(http2),
    answer: (path, ...recordings) => answers.set(path, [...recordings]),
    requests,
    close: async () => {
      for (const session of sessions) session.destroy();
      http1.closeAllConnections();
      await Promise.all([
        new Promise((resolve) => http1.close(resolve)),
        new Promise((resolve) => http2.close(resolve)),
      ]);
    },
  };
}
