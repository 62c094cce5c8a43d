import { Agent, createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable, type LocalStack } from '@cm/local';
import { forgetKeyLookups, resetServices } from '@cm/runtime';
import { createDocumentClient, createStore } from '@cm/store';
import { FLOOR_KIND, FRESH_CLIENT, startExactFloor, type CommandRecorder, type RecordedReply } from './exact-floor';
import { median, quantile, round } from './stats';

/*
 * The HTTP section of `npm run bench`: each operation against two floors, on the same embedded DynamoDB.
 * The bare floor is node:http, the same JSON parse and one PutItem or GetItem: the least any service
 * must do. The exact floor (bench/exact-floor.ts) sends the very commands the service sent for the
 * operation: the service's ratio to it is its own overhead. Requests go in threes, the order turning,
 * so machine noise falls on all three; warm (caches full, as a warm Lambda) and cold (the key check and
 * the site's item not cached, a new DynamoDB client and a new connection: a fresh container's first
 * request, its module init apart, which the bundles' section measures).
 */

const PAIRS = Number(process.env.BENCH_PAIRS ?? 300);
const WARMUP = 30;
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 20);
/** The exact floor's table, named as long as the service's (`bench`), so the requests are the same size. */
const MIRROR = 'floor';

export const agent = new Agent({ keepAlive: true, maxSockets: 1 });

export interface Answer {
  status: number;
  /** The headers as they came (names and values in one list). */
  headers: string[];
  bytes: Buffer;
  /** The bytes as UTF-8 text. */
  body: string;
  ms: number;
}

/** What the exact floor is to answer for a request the service answered so. */
export const replyOf = (answer: Answer): RecordedReply => ({
  status: answer.status,
  headers: answer.headers,
  body: answer.bytes,
});

/** The exact floor's answer to a capture the service made outside a timed request (set-up, queued work). */
const UNTIMED: RecordedReply = { status: 200, headers: [], body: Buffer.alloc(0) };

/** One HTTP request on a kept-alive connection (of `via`), timed from send to the last byte. */
export function send(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  via: Agent = agent,
): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      url,
      {
        method,
        agent: via,
        headers: {
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
            : {}),
          ...headers,
        },
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const ms = performance.now() - started;
          const bytes = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.rawHeaders, bytes, body: bytes.toString('utf8'), ms });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * The bare floor: what any service must do for a publish or a read, and nothing more. Its clients are
 * the recorder's floor clients, so its requests are not taken for the service's.
 */
async function startBareFloor(
  recorder: CommandRecorder,
  endpoint: string,
  tableName: string,
): Promise<{ server: Server; url: string }> {
  const client = () => {
    const db = createDocumentClient({ endpoint });
    recorder.floor(db);
    return db;
  };
  const warm = client();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const db = req.headers[FRESH_CLIENT] ? client() : warm;
      const reply = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const run = async () => {
        if (req.method === 'POST') {
          const doc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { slug?: string; id?: string };
          await db.send(
            new PutCommand({ TableName: tableName, Item: { pk: 'FLOOR', sk: String(doc.id ?? doc.slug), doc } }),
          );
          return reply(201, { ok: true });
        }
        const item = await db.send(
          new GetCommand({
            TableName: tableName,
            Key: { pk: 'FLOOR', sk: decodeURIComponent(req.url!.split('/').pop()!) },
          }),
        );
        return item.Item ? reply(200, item.Item) : reply(404, { error: 'not_found' });
      };
      run()
        .catch((error: unknown) => reply(500, { error: String(error) }))
        .finally(() => db !== warm && db.destroy());
    });
  });
  // Kept-alive connections stay open however long a section leaves them idle (a close would race a reuse).
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

interface Request {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** An operation measured: the service's request `i` and its status, the bare floor's request `i` and its status. */
interface Operation {
  name: string;
  service: (i: number) => Request;
  status: number;
  bare: (i: number) => Request;
  bareStatus: number;
}

interface Sample {
  ms: number;
  /**
   * The process's CPU time while the request ran: the service, the floors, the embedded DynamoDB and the
   * client share the process, and nothing else of it runs meanwhile, so this is the request's own cost,
   * which other processes' load on a shared machine stretches far less than its wall-clock time.
   */
  cpuMs: number;
  /** The time the embedded DynamoDB spent answering the request's DynamoDB calls (timed at its server). */
  dynamoMs: number;
  requests: number;
}

export interface Latency {
  n: number;
  median_ms: number;
  p99_ms: number;
  /** The exact floor: the service's own DynamoDB commands and nothing else. */
  exact_floor_median_ms: number;
  exact_floor_p99_ms: number;
  exact_median_ratio: number;
  exact_p99_ratio: number;
  /** The bare floor: one PutItem or GetItem. */
  floor_median_ms: number;
  floor_p99_ms: number;
  median_ratio: number;
  p99_ratio: number;
  /** Median CPU time of a request (see Sample), and the service's ratios of it to each floor's. */
  cpu_median_ms: number;
  exact_floor_cpu_median_ms: number;
  floor_cpu_median_ms: number;
  exact_cpu_ratio: number;
  cpu_ratio: number;
  /** The service's DynamoDB requests per request (median), its queued work aside; the exact floor's. */
  dynamodb_requests: number;
  exact_floor_dynamodb_requests: number;
  dynamodb_median_ms: number;
  exact_floor_dynamodb_median_ms: number;
  floor_dynamodb_median_ms: number;
  /** Median of each request's time outside DynamoDB: HTTP, the handler's own work, the SDK. */
  outside_dynamodb_median_ms: number;
  exact_floor_outside_dynamodb_median_ms: number;
  floor_outside_dynamodb_median_ms: number;
}

function summary(service: Sample[], exact: Sample[], bare: Sample[]): Latency {
  const at = (side: Sample[], q: number, of: (s: Sample) => number = (s) => s.ms) => quantile(side.map(of), q);
  const mid = (side: Sample[], of?: (s: Sample) => number) => round(at(side, 0.5, of));
  const inDynamo = (s: Sample) => s.dynamoMs;
  const outside = (s: Sample) => s.ms - s.dynamoMs;
  const requests = (s: Sample) => s.requests;
  const cpu = (s: Sample) => s.cpuMs;
  return {
    n: service.length,
    median_ms: mid(service),
    p99_ms: round(at(service, 0.99)),
    exact_floor_median_ms: mid(exact),
    exact_floor_p99_ms: round(at(exact, 0.99)),
    exact_median_ratio: round(at(service, 0.5) / at(exact, 0.5)),
    exact_p99_ratio: round(at(service, 0.99) / at(exact, 0.99)),
    floor_median_ms: mid(bare),
    floor_p99_ms: round(at(bare, 0.99)),
    median_ratio: round(at(service, 0.5) / at(bare, 0.5)),
    p99_ratio: round(at(service, 0.99) / at(bare, 0.99)),
    cpu_median_ms: mid(service, cpu),
    exact_floor_cpu_median_ms: mid(exact, cpu),
    floor_cpu_median_ms: mid(bare, cpu),
    exact_cpu_ratio: round(at(service, 0.5, cpu) / at(exact, 0.5, cpu)),
    cpu_ratio: round(at(service, 0.5, cpu) / at(bare, 0.5, cpu)),
    dynamodb_requests: median(service.map(requests)),
    exact_floor_dynamodb_requests: median(exact.map(requests)),
    dynamodb_median_ms: mid(service, inDynamo),
    exact_floor_dynamodb_median_ms: mid(exact, inDynamo),
    floor_dynamodb_median_ms: mid(bare, inDynamo),
    outside_dynamodb_median_ms: mid(service, outside),
    exact_floor_outside_dynamodb_median_ms: mid(exact, outside),
    floor_outside_dynamodb_median_ms: mid(bare, outside),
  };
}

function print(name: string, r: Latency, cold: boolean) {
  const p99 = (ms: number, ratio: number) => (cold ? '' : ` (p99 ${ms} ms, ${ratio}x)`);
  console.log(
    `${name.padEnd(8)} ${r.median_ms} ms, ${r.dynamodb_requests} DynamoDB request(s); ` +
      `exact floor ${r.exact_floor_median_ms} ms = ${r.exact_median_ratio}x${p99(r.exact_floor_p99_ms, r.exact_p99_ratio)}; ` +
      `bare floor ${r.floor_median_ms} ms = ${r.median_ratio}x${p99(r.floor_p99_ms, r.p99_ratio)}\n` +
      `${''.padEnd(8)} in DynamoDB ${r.dynamodb_median_ms} / ${r.exact_floor_dynamodb_median_ms} / ${r.floor_dynamodb_median_ms} ms; ` +
      `outside it ${r.outside_dynamodb_median_ms} / ${r.exact_floor_outside_dynamodb_median_ms} / ${r.floor_outside_dynamodb_median_ms} ms (service / exact / bare)\n` +
      `${''.padEnd(8)} CPU ${r.cpu_median_ms} / ${r.exact_floor_cpu_median_ms} / ${r.floor_cpu_median_ms} ms: ${r.exact_cpu_ratio}x the exact floor's, ${r.cpu_ratio}x the bare floor's`,
  );
}

/** The three sides' order in round `i`: each goes first, second and third equally often. */
const ORDERS = [
  ['service', 'exact', 'bare'],
  ['exact', 'bare', 'service'],
  ['bare', 'service', 'exact'],
] as const;

export interface HttpFigures {
  http: Record<'publish' | 'replace' | 'read' | 'visitor' | 'notify', Latency>;
  http_cold: Record<'publish' | 'replace' | 'read' | 'visitor', Latency>;
}

/**
 * The HTTP section, on `stack` (whose every document-client command since its start `recorder` holds)
 * and its demo site's article `read-me` (`readMeId`):
 * the exact floor's table gets a copy of the service's, kept by replaying every command the service
 * sends, so its conditions and reads go as the service's did.
 */
export async function httpFigures(
  stack: LocalStack,
  recorder: CommandRecorder,
  readMeId: string,
): Promise<HttpFigures> {
  const endpoint = stack.dynamo.endpoint;
  await ensureTable(endpoint, MIRROR);
  const exact = await startExactFloor(recorder, endpoint, stack.tableName, MIRROR);
  const bare = await startBareFloor(recorder, endpoint, stack.tableName);
  const expect = (answer: Answer, status: number, side: string) => {
    if (answer.status !== status)
      throw new Error(`${side}: ${answer.status}, not ${status}: ${answer.body.slice(0, 300)}`);
    return answer;
  };
  /** Has the exact floor send, untimed, what is queued for `kind` (each answered `status`). */
  const flush = async (kind: string, status: number) => {
    while (exact.pending(kind) > 0)
      expect(await send(exact.url, 'POST', '/', undefined, { [FLOOR_KIND]: kind }), status, `exact floor ${kind}`);
    recorder.takeFloor();
  };
  /** The service's commands not yet replayed on the mirror (set-up, queued work): replayed, untimed. */
  const mirror = async () => {
    await stack.drain();
    exact.queue('mirror', recorder.take(), UNTIMED);
    await flush('mirror', UNTIMED.status);
  };

  /**
   * Runs `op` `warmup + runs` times after one untimed run (the exact floor sends the commands of the
   * service's run before, so it has some when it goes first), the three sides in turn.
   */
  async function measure(op: Operation, runs: number, warmup: number, cold: boolean): Promise<Latency> {
    await mirror();
    const samples = { service: [] as Sample[], exact: [] as Sample[], bare: [] as Sample[] };
    const run = async (request: () => Promise<Answer>, status: number, side: string) => {
      const recording = stack.dynamo.record();
      const started = process.cpuUsage();
      const answer = await request().finally(() => recording.stop());
      const { user, system } = process.cpuUsage(started);
      expect(answer, status, `${op.name} ${side}`);
      const durations = recording.durations();
      const sample: Sample = {
        ms: answer.ms,
        cpuMs: (user + system) / 1000,
        dynamoMs: durations.reduce((sum, ms) => sum + ms, 0),
        requests: durations.length,
      };
      return { sample, answer };
    };
    const fresh: Record<string, string> = cold ? { [FRESH_CLIENT]: '1' } : {};
    const sides = {
      service: async (i: number, via: Agent) => {
        if (cold) {
          forgetKeyLookups();
          resetServices();
        }
        const r = op.service(i);
        const { sample, answer } = await run(
          () => send(stack.url, r.method, r.path, r.body, r.headers, via),
          op.status,
          'service',
        );
        await stack.drain();
        exact.queue(op.name, recorder.take(), replyOf(answer));
        return sample;
      },
      exact: async (i: number, via: Agent) => {
        const r = op.service(i);
        const { sample } = await run(
          () => send(exact.url, r.method, r.path, r.body, { ...r.headers, [FLOOR_KIND]: op.name, ...fresh }, via),
          op.status,
          'exact floor',
        );
        recorder.takeFloor();
        return sample;
      },
      bare: async (i: number, via: Agent) => {
        const r = op.bare(i);
        return (await run(() => send(bare.url, r.method, r.path, r.body, fresh, via), op.bareStatus, 'bare floor'))
          .sample;
      },
    };
    await sides.service(0, agent);
    for (let i = 1; i <= warmup + runs; i++) {
      for (const side of ORDERS[i % ORDERS.length]!) {
        // Cold, each request opens its own connection, as a new container's first would.
        const via = cold ? new Agent({ keepAlive: true, maxSockets: 1 }) : agent;
        const sample = await sides[side](i, via);
        if (via !== agent) via.destroy();
        if (i > warmup) samples[side].push(sample);
      }
    }
    // The service's last run, when it went last in its round, and what it queued since.
    await flush(op.name, op.status);
    await mirror();
    const result = summary(samples.service, samples.exact, samples.bare);
    print(op.name, result, cold);
    return result;
  }

  const key = stack.demo!.api_key;
  const auth = { 'x-api-key': key };
  const readMe = { id: readMeId };
  expect(await send(bare.url, 'POST', '/floor', { ...article('read-me'), id: readMe.id }), 201, 'bare floor');
  const toBare = {
    write: (i: number) => ({ method: 'POST', path: '/floor', body: article(`new-${i}`) }),
    read: () => ({ method: 'GET', path: `/floor/${readMe.id}` }),
  };
  const notice = { id: readMe.id, type: 'article', action: 'edited' };

  try {
    console.log(
      `\nHTTP, warm, ${PAIRS} rounds: the service, the exact floor (its own DynamoDB commands replayed) and the bare floor (one PutItem/GetItem):`,
    );
    const warm = {
      publish: await measure(
        {
          name: 'publish',
          service: (i) => ({ method: 'POST', path: '/articles', body: article(`new-${i}`), headers: auth }),
          status: 201,
          bare: toBare.write,
          bareStatus: 201,
        },
        PAIRS,
        WARMUP,
        false,
      ),
      replace: await measure(
        {
          name: 'replace',
          service: (i) => ({
            method: 'POST',
            path: '/articles',
            body: article('read-me', { meta_description: `Fit first, then cushioning, then grip (take ${i}).` }),
            headers: auth,
          }),
          status: 200,
          bare: toBare.write,
          bareStatus: 201,
        },
        PAIRS,
        WARMUP,
        false,
      ),
      read: await measure(
        {
          name: 'read',
          service: () => ({ method: 'GET', path: `/articles/${readMe.id}`, headers: auth }),
          status: 200,
          bare: toBare.read,
          bareStatus: 200,
        },
        PAIRS,
        WARMUP,
        false,
      ),
      visitor: await measure(
        {
          name: 'visitor',
          service: () => ({ method: 'GET', path: `/sites/${stack.demo!.site_id}/articles/read-me` }),
          status: 200,
          bare: toBare.read,
          bareStatus: 200,
        },
        PAIRS,
        WARMUP,
        false,
      ),
      notify: await measure(
        {
          name: 'notify',
          service: () => ({ method: 'POST', path: '/api/content/notify', body: notice, headers: auth }),
          status: 200,
          bare: () => ({ method: 'POST', path: '/floor', body: notice }),
          bareStatus: 201,
        },
        PAIRS,
        WARMUP,
        false,
      ),
    };

    // Cold: a site each round, its key never checked and its pages never served in this process.
    const store = createStore(createDocumentClient({ endpoint }), stack.tableName);
    const sites: { siteId: number; key: string; readMe: string }[] = [];
    for (let k = 0; k <= COLD_RUNS; k++) {
      const created = await store.sites.create({ name: `Cold site ${k}`, domain: `cold-${k}.example.com` });
      const published = await send(stack.url, 'POST', '/articles', article('read-me'), {
        'x-api-key': created.api_key,
      });
      const { id } = JSON.parse(expect(published, 201, 'publish').body) as { id: string };
      sites.push({ siteId: created.site.site_id, key: created.api_key, readMe: id });
    }
    const site = (k: number) => sites[k]!;
    const keyOf = (k: number) => ({ 'x-api-key': site(k).key });
    console.log(
      `\nHTTP, cold (the key and the site not cached, a new DynamoDB client and connection), ${COLD_RUNS} rounds:`,
    );
    const cold = {
      publish: await measure(
        {
          name: 'cold-publish',
          service: (k) => ({ method: 'POST', path: '/articles', body: article(`cold-${k}`), headers: keyOf(k) }),
          status: 201,
          bare: toBare.write,
          bareStatus: 201,
        },
        COLD_RUNS,
        0,
        true,
      ),
      replace: await measure(
        {
          name: 'cold-replace',
          service: (k) => ({
            method: 'POST',
            path: '/articles',
            body: article('read-me', { meta_description: 'Fit first, then grip.' }),
            headers: keyOf(k),
          }),
          status: 200,
          bare: toBare.write,
          bareStatus: 201,
        },
        COLD_RUNS,
        0,
        true,
      ),
      read: await measure(
        {
          name: 'cold-read',
          service: (k) => ({ method: 'GET', path: `/articles/${site(k).readMe}`, headers: keyOf(k) }),
          status: 200,
          bare: toBare.read,
          bareStatus: 200,
        },
        COLD_RUNS,
        0,
        true,
      ),
      visitor: await measure(
        {
          name: 'cold-visitor',
          service: (k) => ({ method: 'GET', path: `/sites/${site(k).siteId}/articles/read-me` }),
          status: 200,
          bare: toBare.read,
          bareStatus: 200,
        },
        COLD_RUNS,
        0,
        true,
      ),
    };
    return { http: warm, http_cold: cold };
  } finally {
    exact.server.close();
    bare.server.close();
  }
}

export const article = (slug: string, extra: Record<string, unknown> = {}) => ({
  slug,
  title: `How to choose ${slug}`,
  meta_description: 'Fit first, then cushioning, then grip.',
  body: [
    { _type: 'heading', level: 2, text: 'Why fit matters' },
    { _type: 'paragraph', text: 'Start with fit, then cushioning. A shoe that fits well lasts longer and hurts less.' },
    { _type: 'paragraph', text: 'Trail shoes need grip: deep lugs bite into mud and loose gravel.' },
  ],
  ...extra,
});
