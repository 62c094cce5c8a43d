import './env';
import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { MCP_PATH } from '@cm/contract';
import { startProcessStack, type ProcessStack } from '../test/helpers/process-stack';

/*
 * `npm run soak [-- --minutes=N --warmup=S --memory]` (10 minutes by default, no warm-up; .ci/run runs
 * 1 minute after 120 s of warm-up): `npm start` as its own process,
 * under a bounded mixed load from a few clients at once (publish, notify, API reads, visitor pages,
 * tool calls over REST and MCP, the dashboard's API), with a flood of malformed requests for two tenths
 * of the run (bad JSON, wrong types, huge and odd headers, bad Host values, random bytes, abrupt
 * closes). It fails (exit 1) on any 5xx, on the stack's process ending, or when the stack's RSS over the
 * last tenth of the run is more than 15 % above the second tenth's; it prints p50/p99 per route.
 */

const minutes = Number(
  process.argv.find((arg) => arg.startsWith('--minutes='))?.split('=')[1] ?? process.env.SOAK_MINUTES ?? 10,
);
const DURATION_MS = minutes * 60_000;
/**
 * Traffic before the clock starts, the flood included: a short run's second tenth is otherwise still
 * the process warming up (its heap and caches growing to their working size), not a baseline.
 */
const WARMUP_MS = Number(process.argv.find((arg) => arg.startsWith('--warmup='))?.split('=')[1] ?? 0) * 1000;
/**
 * After the warm-up, more of it in steps while the stack's RSS still grows by more than SETTLED_GROWTH
 * a step (well under the 15 % a run may grow) (its heap still reaching its working size; how long that takes varies with the machine), up
 * to SETTLE_MAX_MS: the baseline is then the settled process, and growth after it is what the soak is for.
 */
const SETTLE_STEP_MS = 10_000;
const SETTLED_GROWTH = 0.015;
const SETTLE_MAX_MS = 120_000;
const TENTH = DURATION_MS / 10;
const CLIENTS = 4;
/** Each load client's pause between requests: the load is bounded, not as fast as the machine goes. */
const PAUSE_MS = 10;
const FLOOD_CLIENTS = Number(process.env.SOAK_FLOOD_CLIENTS ?? 3);
/** Slugs the load publishes, again and again: the data stays bounded, so memory may too. */
const SLUGS = 40;
const RSS_GROWTH_MAX = 0.15;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(items: readonly T[], i: number): T => items[i % items.length]!;

interface Sample {
  route: string;
  ms: number;
  status: number;
}

/** The load: each step one request of the mix, timed; its route label is the route template. */
function loadSteps(stack: ProcessStack, siteId: number) {
  const json = async (
    route: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Sample> => {
    const started = performance.now();
    const res = await fetch(`${stack.url}${path}`, {
      method,
      headers: {
        'x-api-key': stack.key,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.arrayBuffer();
    return { route, ms: performance.now() - started, status: res.status };
  };
  const slug = (i: number) => `soak-${i % SLUGS}`;
  return [
    (i: number) =>
      json('POST /articles', 'POST', '/articles', {
        slug: slug(i),
        title: `Soak ${i}`,
        body: [
          { _type: 'paragraph', text: `Run ${i}, linking to [another](/articles/${slug(i + 1)}).` },
          { _type: 'block', style: 'normal', children: [{ _type: 'span', text: 'Portable Text' }], markDefs: [] },
        ],
      }),
    (i: number) =>
      json('POST /questions', 'POST', '/questions', {
        slug: slug(i),
        question: `Question ${i}?`,
        answer: [{ _type: 'paragraph', text: 'Yes.' }],
      }),
    (i: number) => json('GET /articles', 'GET', `/articles?slug=${slug(i)}`),
    () => json('GET /articles?limit', 'GET', '/articles?limit=20'),
    (i: number) =>
      json('POST /api/content/notify', 'POST', '/api/content/notify', {
        id: `unknown-${i}`,
        type: 'article',
        action: pick(['unpublished', 'published', 'deleted'], i),
      }),
    (i: number) =>
      json('GET /sites/{site_id}/articles/{slug}', 'GET', `/sites/${siteId}/articles/${slug(i)}`, undefined, {
        'x-api-key': '',
      }),
    (i: number) =>
      json('POST /v1/tools/get_keywords', 'POST', '/v1/tools/get_keywords', {
        seeds: [`running shoes ${i % 7}`, 'trail shoes'],
      }),
    (i: number) =>
      json('POST /v1/tools/db_select', 'POST', '/v1/tools/db_select', {
        table: pick(['cm_keywords', 'cm_pages', 'cm_topics'], i),
        limit: 20,
      }),
    (i: number) =>
      json(
        `POST ${MCP_PATH} tools/call`,
        'POST',
        MCP_PATH,
        {
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'recall', arguments: { query: 'running shoes' } },
        },
        { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      ),
    (i: number) =>
      json(
        `POST ${MCP_PATH} tools/list`,
        'POST',
        MCP_PATH,
        { jsonrpc: '2.0', id: i, method: 'tools/list' },
        {
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
      ),
    // What the dashboard asks for: its page, the usage by day, the budget.
    () => json('GET /dashboard', 'GET', '/dashboard', undefined, { 'x-api-key': '' }),
    () => json('GET /v1/usage?by=day', 'GET', '/v1/usage?by=day'),
    () => json('GET /v1/budget', 'GET', '/v1/budget'),
    () => json('GET /health', 'GET', '/health'),
  ];
}

/** One malformed request on its own connection: what came back first (a status, or how the connection ended). */
function sendMalformed(port: number, bytes: Buffer, closeAfterMs?: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const done = (outcome: string) => {
      socket.destroy();
      resolve(outcome);
    };
    socket.setTimeout(10_000, () => done('timeout'));
    socket.on('connect', () => {
      socket.write(bytes);
      // An abrupt close: the client goes away mid-request.
      if (closeAfterMs !== undefined) setTimeout(() => done('closed by client'), closeAfterMs);
    });
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (status) done(status[1]!);
    });
    socket.on('error', () => done('reset'));
    socket.on('end', () => done(answer ? 'answered' : 'closed by server'));
  });
}

/** The malformed requests of the flood, by index: every kind in turn, varied by `i`. */
function malformed(i: number, key: string): { bytes: Buffer; closeAfterMs?: number } {
  const request = (head: string[], body = '') =>
    Buffer.from(
      [...head, `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close', '', body].join('\r\n'),
      'utf8',
    );
  const paths = [
    '/articles',
    '/questions',
    '/api/content/notify',
    '/v1/tools/get_keywords',
    '/v1/tools/research',
    MCP_PATH,
    '/v1/budget',
  ];
  const path = pick(paths, i);
  const auth = `X-API-Key: ${key}`;
  switch (i % 10) {
    case 0: // bad JSON
      return {
        bytes: request(
          [`POST ${path} HTTP/1.1`, 'Host: localhost', auth, 'Content-Type: application/json'],
          pick(['{', '{"slug":', '[1,2', '{"a":1}}', '\u0000\u0001', 'nul'], i),
        ),
      };
    case 1: // wrong types
      return {
        bytes: request(
          [`POST ${path} HTTP/1.1`, 'Host: localhost', auth, 'Content-Type: application/json'],
          pick(
            [
              '{"slug":42,"title":[],"body":"x"}',
              '{"seeds":{"a":1}}',
              '{"id":null,"type":7}',
              '[]',
              '"text"',
              '{"jsonrpc":"2.0","method":5}',
            ],
            i,
          ),
        ),
      };
    case 2: // a huge header
      return {
        bytes: request([
          `GET /articles HTTP/1.1`,
          'Host: localhost',
          auth,
          `X-Big: ${'a'.repeat(20_000 + (i % 50_000))}`,
        ]),
      };
    case 3: // odd headers: many, duplicated, odd bytes
      return {
        bytes: request([
          `GET /v1/usage HTTP/1.1`,
          'Host: localhost',
          auth,
          auth,
          ...Array.from({ length: 150 }, (_, n) => `X-H${n}: ${n}`),
          'X-Odd: \u00ff\u00fe',
          'Content-Type: application/json; charset=x',
        ]),
      };
    case 4: // bad Host values
      return {
        bytes: request([
          `GET /health HTTP/1.1`,
          `Host: ${pick(['', '[', '[::1', 'a b', 'x:99999', '%%', 'ex ample.com:80', '\u00e9.com', ':80', 'host:'], i)}`,
        ]),
      };
    case 5: // random bytes
      return { bytes: Buffer.from(Array.from({ length: 64 + (i % 4000) }, (_, n) => (n * 131 + i * 17) % 256)) };
    case 6: // an abrupt close mid-body
      return {
        bytes: Buffer.from(
          `POST /articles HTTP/1.1\r\nHost: localhost\r\n${auth}\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n{"slug":"x","body":[`,
          'utf8',
        ),
        closeAfterMs: i % 50,
      };
    case 7: // an abrupt close mid-headers
      return {
        bytes: Buffer.from(`GET /articles?slug=a HTTP/1.1\r\nHost: localhost\r\n${auth}\r\nX-Partial: `, 'utf8'),
        closeAfterMs: i % 20,
      };
    case 8: // a bad method, path or version
      return {
        bytes: Buffer.from(
          `${pick(['BREW', 'GET', 'POST'], i)} ${pick(['/%zz', '*', '//..//', '/articles/%E0%A4%A'], i)} ${pick(['HTTP/1.1', 'HTTP/9.9', 'HTTX'], i)}\r\nHost: localhost\r\n\r\n`,
          'utf8',
        ),
      };
    default: // a body longer or shorter than its Content-Length says
      return {
        bytes: Buffer.from(
          `POST ${path} HTTP/1.1\r\nHost: localhost\r\n${auth}\r\nContent-Type: application/json\r\nContent-Length: ${i % 2 ? 3 : 40}\r\nConnection: close\r\n\r\n{"slug":"short"}`,
          'utf8',
        ),
      };
  }
}

/** The stack's resident set size in MB, as `ps` reports it (Linux and macOS alike). */
function rssMb(pid: number): number {
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

async function main() {
  const stack = await startProcessStack(
    { POWERTOOLS_LOG_LEVEL: 'ERROR' },
    process.argv.includes('--memory') ? ['--memory'] : [],
  );
  const port = Number(new URL(stack.url).port);
  const siteId = Number(/site_id (\d+)/.exec(stack.printed)?.[1]);
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const samples: Sample[] = [];
  const serverErrors: string[] = [];
  const flood = new Map<string, number>();
  const rss: { at: number; mb: number }[] = [];
  const warming: { at: number; mb: number }[] = [];
  let warmupEnd = WARMUP_MS;
  let death: string | null = null;

  console.log(
    `Soak: ${WARMUP_MS > 0 ? `${WARMUP_MS / 1000} s of warm-up, then ` : ''}${minutes} min on ${stack.url} (pid ${stack.pid}), ` +
      `${CLIENTS} load clients, a malformed-input flood from ${FLOOD_CLIENTS} clients in tenths 3 and 4`,
  );
  // Times are from the end of the warm-up: RSS samples and latencies of the warm-up are not kept.
  const watcher = setInterval(() => {
    const ended = stack.ended();
    if (ended) {
      death ??= `the stack's process ended (code ${ended.code}, signal ${ended.signal}) at ${(elapsed() / 1000).toFixed(0)} s; its last output:\n${stack.output().slice(-4000)}`;
      return;
    }
    if (elapsed() >= warmupEnd) rss.push({ at: elapsed() - warmupEnd, mb: rssMb(stack.pid) });
    else warming.push({ at: elapsed(), mb: rssMb(stack.pid) });
  }, 1000);

  const steps = loadSteps(stack, siteId);
  /** The load and, in its third and fourth tenths, the flood, for `ms` from `from` on. */
  const phase = (from: number, ms: number, keep: boolean) => {
    const until = (at: number) => elapsed() < from + at && !death;
    const load = Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = client; until(ms); i += CLIENTS) {
        const step = steps[i % steps.length]!;
        try {
          const sample = await step(Math.floor(i / steps.length));
          if (keep) samples.push(sample);
          if (sample.status >= 500) serverErrors.push(`${sample.route}: ${sample.status}`);
        } catch (error) {
          serverErrors.push(`load request failed: ${(error as Error).message}`);
        }
        await sleep(PAUSE_MS);
      }
    });
    const floods = Array.from({ length: FLOOD_CLIENTS }, async (_, client) => {
      while (elapsed() < from + 0.2 * ms) await sleep(100);
      for (let i = client; until(0.4 * ms); i += FLOOD_CLIENTS) {
        const { bytes, closeAfterMs } = malformed(i, stack.key);
        const outcome = await sendMalformed(port, bytes, closeAfterMs);
        if (keep) flood.set(outcome, (flood.get(outcome) ?? 0) + 1);
        if (/^5\d\d$/.test(outcome)) serverErrors.push(`malformed request ${i % 10}: ${outcome}`);
      }
    });
    return Promise.all([...load, ...floods]);
  };
  if (WARMUP_MS > 0) {
    await phase(0, WARMUP_MS, false);
    const stepMean = (end: number) =>
      mean(warming.filter((r) => r.at >= end - SETTLE_STEP_MS && r.at < end).map((r) => r.mb));
    while (
      warmupEnd < WARMUP_MS + SETTLE_MAX_MS &&
      stepMean(warmupEnd) > (1 + SETTLED_GROWTH) * stepMean(warmupEnd - SETTLE_STEP_MS)
    ) {
      await phase(warmupEnd, SETTLE_STEP_MS, false);
      warmupEnd += SETTLE_STEP_MS;
    }
    if (warmupEnd > WARMUP_MS)
      console.log(`RSS still grew after ${WARMUP_MS / 1000} s: warmed up ${(warmupEnd - WARMUP_MS) / 1000} s more`);
  }
  await phase(warmupEnd, DURATION_MS, true);
  clearInterval(watcher);

  const routes = [...new Set(samples.map((s) => s.route))].sort();
  console.log('route'.padEnd(44), 'count'.padStart(7), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8));
  const latency = routes.map((route) => {
    const ms = samples
      .filter((s) => s.route === route)
      .map((s) => s.ms)
      .sort((a, b) => a - b);
    const row = {
      route,
      count: ms.length,
      p50_ms: Number(percentile(ms, 50).toFixed(1)),
      p99_ms: Number(percentile(ms, 99).toFixed(1)),
    };
    console.log(
      route.padEnd(44),
      String(row.count).padStart(7),
      row.p50_ms.toFixed(1).padStart(8),
      row.p99_ms.toFixed(1).padStart(8),
    );
    return row;
  });
  const window = (tenth: number) =>
    mean(rss.filter((r) => r.at >= (tenth - 1) * TENTH && r.at < tenth * TENTH).map((r) => r.mb));
  const second = window(2);
  const last = window(10);
  const peak = Math.max(...rss.map((r) => r.mb));
  const growth = last / second - 1;
  console.log(`Malformed flood: ${[...flood].map(([outcome, n]) => `${outcome} ×${n}`).join(', ')}`);
  console.log(`RSS by tenth (MB): ${Array.from({ length: 10 }, (_, i) => window(i + 1).toFixed(0)).join(', ')}`);
  console.log(
    `RSS: second tenth ${second.toFixed(0)} MB, last tenth ${last.toFixed(0)} MB (${(growth * 100).toFixed(1)} %), peak ${peak.toFixed(0)} MB`,
  );

  const failures = [
    ...(death ? [death] : []),
    ...(serverErrors.length > 0
      ? [`${serverErrors.length} server errors, first: ${serverErrors.slice(0, 5).join('; ')}`]
      : []),
    ...(growth > RSS_GROWTH_MAX
      ? [
          `RSS grew ${(growth * 100).toFixed(1)} % from the second tenth to the last (at most ${RSS_GROWTH_MAX * 100} %)`,
        ]
      : []),
  ];
  await stack.stop();
  console.log(
    JSON.stringify({
      minutes,
      requests: samples.length,
      malformed: [...flood.values()].reduce((a, b) => a + b, 0),
      rss_mb: {
        second_tenth: Number(second.toFixed(1)),
        last_tenth: Number(last.toFixed(1)),
        peak: Number(peak.toFixed(1)),
      },
      latency,
      failures,
    }),
  );
  if (failures.length > 0) {
    console.error(`Soak failed:\n- ${failures.join('\n- ')}`);
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
