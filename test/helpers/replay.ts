import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileScoped } from './file-scoped';

/** A recorded DataForSEO response: its HTTP status and the envelope file under test/fixtures/dataforseo. */
export interface Recording {
  fixture: string;
  status?: number;
}

export interface ReplayedRequest {
  endpoint: string;
  authorization: string | undefined;
  body: any;
}

export interface Replay {
  /** Base URL to give the adapter in place of https://api.dataforseo.com. */
  url: string;
  /** Answers for an endpoint (e.g. `serp/google/organic/live/advanced`), in order; the last one repeats. */
  answer(endpoint: string, ...recordings: Recording[]): void;
  /** Makes an endpoint hang: its requests are read and never answered (a provider that stopped answering); `false` ends that. */
  hang(endpoint: string, hanging?: boolean): void;
  requests: ReplayedRequest[];
  close(): Promise<void>;
}

const FIXTURES = join(__dirname, '..', 'fixtures', 'dataforseo');
export const fixture = (name: string): any => JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8'));

/** A loopback HTTP server that replays recorded DataForSEO envelopes: the adapters never reach the network. */
export async function startReplay(): Promise<Replay> {
  const answers = new Map<string, Recording[]>();
  const requests: ReplayedRequest[] = [];
  const hanging = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const endpoint = (req.url ?? '').replace(/^\/v3\//, '');
      requests.push({
        endpoint,
        authorization: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'),
      });
      if (hanging.has(endpoint)) return;
      const queue = answers.get(endpoint);
      const recording = queue && (queue.length > 1 ? queue.shift()! : queue[0]);
      if (!recording) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status_code: 40400, status_message: 'Not Found.' }));
        return;
      }
      res.writeHead(recording.status ?? 200, { 'content-type': 'application/json' });
      res.end(readFileSync(join(FIXTURES, `${recording.fixture}.json`)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answer: (endpoint, ...recordings) => answers.set(endpoint, [...recordings]),
    hang: (endpoint, hang = true) => void (hang ? hanging.add(endpoint) : hanging.delete(endpoint)),
    requests,
    close: () => {
      // A hanging request's connection stays open until it is cut.
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The credentials a test stack gives the DataForSEO adapters, with the replay's address as their base URL. */
export const dataforseoEnv = (replay: Replay): Record<string, string> => ({
  DATAFORSEO_LOGIN: 'api-login',
  DATAFORSEO_PASSWORD: 's3cret',
  DATAFORSEO_BASE_URL: replay.url,
  // Rank checks' tasks are collected at once: the replay answers whether they are ready.
  DATAFORSEO_TASK_READY_SECONDS: '0',
});

/** The test file's replay server, started before its tests and closed after them, its requests forgotten before each. */
export function useReplay(): Replay {
  const replay = fileScoped(startReplay, (r) => r.close());
  beforeEach(() => {
    replay.requests.length = 0;
  });
  return replay;
}
