import './env';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { propertyOf } from '@cm/contract';
import { CHECKS_PER_MONTH, monthlyUsd } from '@cm/core';
import { startLocalStack, type LocalStack } from '@cm/local';
import { rankCheckPrice } from '@cm/providers';
import { esbuildOptions, writeBundle } from '../infra/bundle-report';
import { FUNCTION_ENTRIES } from '../infra/bundling';
import { memoryOf, ONE_VCPU_MB } from '../infra/memory';
import { startTestStack } from '../test/helpers/local';
import { lighthouse, lighthouseFound } from '../test/helpers/lighthouse';
import { publishShowcase } from '../test/helpers/visitor-showcase';
import { findNode24, machineProbe } from '../test/helpers/platform';
import { benchRuntime } from './runtime';
import { recordCommands } from './exact-floor';
import { agent, article, httpFigures, send, type Answer } from './latency';
import { median, round } from './stats';

/*
 * `npm run bench`: the service against its floors, on this machine, from one run. It starts its own
 * local stack (in memory, free ports) and two floor servers on the same embedded DynamoDB (the HTTP
 * section, bench/latency.ts), then counts DynamoDB requests and provider calls, and measures bundles
 * and visitor pages. It prints readable lines, then one JSON line last. It reports; it fails nothing.
 */

const INIT_RUNS = Number(process.env.BENCH_INIT_RUNS ?? 7);
const RELINK_PAGES = 100;
/**
 * `BENCH_ONLY=bundles`: the bundles' section alone, without the local stack, for work on cold init;
 * `BENCH_ONLY=http`: the HTTP section alone, for work on the request path; `BENCH_ONLY=pages`: the
 * visitor pages' section alone (their bytes, and Lighthouse's performance score).
 */
/** Days of rank checks the benchmark runs the schedule for. */
const RANK_DAYS = 10;
const ONLY = process.env.BENCH_ONLY;

/** DynamoDB requests of one request to the stack, its queued work included, and their operations. */
async function requestsOf(
  stack: LocalStack,
  run: () => Promise<Answer>,
  expected: number,
): Promise<{ requests: number; operations: Record<string, number> }> {
  await stack.drain();
  const recording = stack.dynamo.record();
  try {
    const answer = await run();
    if (answer.status !== expected)
      throw new Error(`expected ${expected}, got ${answer.status}: ${answer.body.slice(0, 300)}`);
    await stack.drain();
  } finally {
    recording.stop();
  }
  const operations: Record<string, number> = {};
  for (const op of recording.operations()) operations[op] = (operations[op] ?? 0) + 1;
  return { requests: recording.operations().length, operations };
}

/** A bundle's module init: `require` timed inside a fresh Node, as a Lambda cold start loads it, and the RSS after it. */
function initOf(node: string, bundle: string): { ms: number; rssMb: number } {
  const code = `const t=process.hrtime.bigint();require(${JSON.stringify(bundle)});process.stdout.write(Number(process.hrtime.bigint()-t)/1e6+' '+process.memoryUsage().rss/2**20)`;
  const out = spawnSync(node, ['-e', code], {
    encoding: 'utf8',
    // What the stack gives every function, and a table name for modules that read it at init.
    env: {
      PATH: process.env.PATH,
      NODE_OPTIONS: '--enable-source-maps',
      TABLE_NAME: 'bench',
      AWS_REGION: 'us-east-1',
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
  });
  if (out.status !== 0) throw new Error(`${bundle}: ${out.stderr}`);
  const [ms, rssMb] = out.stdout.split(' ').map(Number);
  if (ms === undefined || rssMb === undefined || Number.isNaN(ms + rssMb))
    throw new Error(`${bundle}: no init figures in ${out.stdout}`);
  return { ms, rssMb };
}
const initMs = (node: string, bundle: string) => initOf(node, bundle).ms;

/**
 * The research worker's heaviest step alone in a process (bench/page-peak.ts): the readable text of
 * the largest page url mode reads, its time on one core and the process's peak RSS.
 */
function largestPage(): { ms: number; peakRssMb: number } {
  const out = spawnSync(
    process.execPath,
    [join(__dirname, '..', 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(__dirname, 'page-peak.ts')],
    {
      encoding: 'utf8',
    },
  );
  if (out.status !== 0) throw new Error(`page-peak.ts: ${out.stderr}`);
  const figures: unknown = JSON.parse(out.stdout);
  const ms = propertyOf(figures, 'ms');
  const peakRssMb = propertyOf(figures, 'peak_rss_mb');
  if (typeof ms !== 'number' || typeof peakRssMb !== 'number') throw new Error(`page-peak.ts printed ${out.stdout}`);
  return { ms: round(ms), peakRssMb: round(peakRssMb) };
}

/**
 * Bundles: each function's size, and its cold module init against a minimal DynamoDB handler built
 * the same way, interleaved; then the MCP front door's ratio against the goal of issue 29.
 */
async function bundleFigures(dir: string) {
  const initNode = benchRuntime(findNode24(machineProbe()), process.execPath, process.version).node;
  const initNodeVersion = spawnSync(initNode, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(
    `\nBundles (minified index.js) and cold module init on node ${initNodeVersion}, ${INIT_RUNS} runs each, interleaved with the minimal handler:`,
  );
  const minimalFile = join(dir, 'minimal', 'index.js');
  await build(esbuildOptions(join(__dirname, 'minimal-handler.ts'), minimalFile));
  const bundles: {
    name: string;
    bytes: number;
    init_median_ms: number;
    init_ratio: number;
    rss_after_init_mb: number;
    memory_mb: number;
  }[] = [];
  const sizeOf = (file: string) => statSync(file).size;
  const minimalInits: number[] = [];
  for (const name of FUNCTION_ENTRIES) {
    const file = await writeBundle(name, join(dir, name));
    const own: number[] = [];
    const rss: number[] = [];
    const minimal: number[] = [];
    const measureOwn = () => {
      const init = initOf(initNode, file);
      own.push(init.ms);
      rss.push(init.rssMb);
    };
    for (let i = 0; i < INIT_RUNS; i++) {
      if (i % 2 === 0) {
        measureOwn();
        minimal.push(initMs(initNode, minimalFile));
      } else {
        minimal.push(initMs(initNode, minimalFile));
        measureOwn();
      }
    }
    minimalInits.push(...minimal);
    const entry = {
      name,
      bytes: sizeOf(file),
      init_median_ms: round(median(own)),
      init_ratio: round(median(own) / median(minimal)),
      rss_after_init_mb: round(median(rss)),
      memory_mb: memoryOf(name),
    };
    bundles.push(entry);
    console.log(
      `${name.padEnd(22)} ${String(Math.round(entry.bytes / 1024)).padStart(5)} KB  init ${entry.init_median_ms} ms = ${entry.init_ratio}x  RSS ${Math.round(entry.rss_after_init_mb)} of ${entry.memory_mb} MB`,
    );
  }
  const minimalBundle = { bytes: sizeOf(minimalFile), init_median_ms: round(median(minimalInits)) };
  console.log(
    `${'(minimal handler)'.padEnd(22)} ${String(Math.round(minimalBundle.bytes / 1024)).padStart(5)} KB  init ${minimalBundle.init_median_ms} ms`,
  );

  // The MCP front door: its init against the goal of issue 29, and what its first POST loads besides (server.js).
  const mcp = bundles.find((bundle) => bundle.name === 'mcp');
  if (!mcp) throw new Error('no mcp bundle was measured');
  const mcpServerFile = join(dir, 'mcp', 'server.js');
  const mcpServerInits = Array.from({ length: INIT_RUNS }, () => initMs(initNode, mcpServerFile));
  const mcpFrontDoor = {
    init_ratio: mcp.init_ratio,
    goal_ratio: 1.5,
    server_bytes: sizeOf(mcpServerFile),
    server_load_median_ms: round(median(mcpServerInits)),
  };
  console.log(
    `\nmcp cold module init: ${mcp.init_median_ms} ms = ${mcp.init_ratio}x the minimal handler (goal: at most ${mcpFrontDoor.goal_ratio}x); ` +
      `its server.js (${Math.round(mcpFrontDoor.server_bytes / 1024)} KB: the MCP SDK, the listing, the Lambda client) loads with the first POST /mcp in ${mcpFrontDoor.server_load_median_ms} ms`,
  );
  const page = largestPage();
  const worker = memoryOf('research-worker');
  console.log(
    `research worker, readable text of the largest page url mode reads: ${page.ms} ms of one core, peak RSS ${Math.round(page.peakRssMb)} of its ${worker} MB (${round(worker / ONE_VCPU_MB)} vCPU)`,
  );
  return {
    bundles: { init_node: initNodeVersion, init_runs: INIT_RUNS, minimal: minimalBundle, functions: bundles },
    mcp_front_door: mcpFrontDoor,
    research_worker_largest_page: { ms: page.ms, peak_rss_mb: page.peakRssMb, memory_mb: worker },
  };
}

/**
 * Each kind of visitor page (test/helpers/visitor-showcase.ts): the bytes it sends as is and compressed
 * as the CDN sends it (gzip, brotli), and Lighthouse's performance score for a phone (goal: 100) where
 * Lighthouse can run (a Node 24 and a Chromium: test/helpers/lighthouse.ts says which it found).
 */
async function pageFigures() {
  console.log('\nVisitor pages: bytes sent (as is, gzip, brotli) and Lighthouse performance (goal 100):');
  const t = await startTestStack();
  const dir = mkdtempSync(join(tmpdir(), 'cm-bench-lighthouse-'));
  try {
    const showcase = await publishShowcase(t);
    const pages: Record<
      string,
      { bytes: number; gzip_bytes: number; brotli_bytes: number; performance: number | null }
    > = {};
    for (const [kind, path] of Object.entries(showcase)) {
      const html = Buffer.from((await t.call('GET', path, undefined, { key: null })).text, 'utf8');
      const url = `${t.url.replace('localhost', '127.0.0.1')}${path}`;
      const performance =
        'skip' in lighthouseFound
          ? null
          : ((await lighthouse(url, join(dir, `${kind}.json`))).categories.performance?.score ?? null);
      pages[kind] = {
        bytes: html.length,
        gzip_bytes: gzipSync(html).length,
        brotli_bytes: brotliCompressSync(html).length,
        performance: performance === null ? null : Math.round(performance * 100),
      };
      const p = pages[kind];
      console.log(
        `${kind.padEnd(10)} ${String(p.bytes).padStart(6)} B, gzip ${String(p.gzip_bytes).padStart(5)} B, brotli ${String(p.brotli_bytes).padStart(5)} B, performance ${p.performance ?? '-'}`,
      );
    }
    if ('skip' in lighthouseFound) console.log(`(no Lighthouse: ${lighthouseFound.skip})`);
    return pages;
  } finally {
    await t.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The bundles' section alone (BENCH_ONLY=bundles), its JSON line last as the whole benchmark's. */
async function bundlesOnly() {
  console.log(`content API benchmark, bundles only: node ${process.version}, ${cpus().length} CPUs`);
  const dir = mkdtempSync(join(tmpdir(), 'cm-bench-'));
  try {
    const built = await bundleFigures(dir);
    console.log(
      JSON.stringify({
        bench: 'content-api',
        at: new Date().toISOString(),
        node: process.version,
        cpus: cpus().length,
        ...built,
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  if (ONLY === 'bundles') return bundlesOnly();
  if (ONLY === 'pages') {
    const pages = await pageFigures();
    console.log(JSON.stringify({ bench: 'content-api', at: new Date().toISOString(), node: process.version, pages }));
    return;
  }
  if (ONLY !== undefined && ONLY !== 'http')
    throw new Error(`BENCH_ONLY=${ONLY}: the sections it can run alone are bundles, http and pages`);
  console.log(`content API benchmark: node ${process.version}, ${cpus().length} CPUs`);
  // From before the stack starts: the exact floor's table copies everything the service writes.
  const recorder = recordCommands();
  const stack = await startLocalStack({
    memory: true,
    port: 0,
    dynamoPort: 0,
    tableName: 'bench',
    demoSite: true,
    schedules: false,
    // Thousands of requests from one address and key: WAF's rules would count them, and the floors have none.
    rateRules: [],
  });
  const key = stack.demo!.api_key;
  const siteId = stack.demo!.site_id;
  const auth = { 'x-api-key': key };
  const svc = (method: string, path: string, body?: unknown) => send(stack.url, method, path, body, auth);
  const dir = mkdtempSync(join(tmpdir(), 'cm-bench-'));
  try {
    const published = JSON.parse((await svc('POST', '/articles', article('read-me'))).body) as { id: string };
    const http = await httpFigures(stack, recorder, published.id).finally(() => recorder.stop());

    if (ONLY === 'http') {
      console.log(
        JSON.stringify({ bench: 'content-api', at: new Date().toISOString(), node: process.version, ...http }),
      );
      return;
    }

    // DynamoDB round trips per operation (the key lookup is cached by now, as in a warm Lambda).
    console.log('\nDynamoDB requests per operation (queued work included):');
    const target = JSON.parse((await svc('POST', '/articles', article('relink-target'))).body) as { id: string };
    for (let i = 0; i < RELINK_PAGES; i++)
      await svc('POST', '/articles', article(`links-to-target-${i}`, { related_article_ids: [target.id] }));
    const dynamodb = {
      publish_new: await requestsOf(stack, () => svc('POST', '/articles', article('counted')), 201),
      publish_replace: await requestsOf(stack, () => svc('POST', '/articles', article('counted')), 200),
      read: await requestsOf(stack, () => svc('GET', `/articles/${published.id}`), 200),
      visitor: await requestsOf(stack, () => send(stack.url, 'GET', `/sites/${siteId}/articles/read-me`), 200),
      notify_edited: await requestsOf(
        stack,
        () => svc('POST', '/api/content/notify', { id: published.id, type: 'article', action: 'edited' }),
        200,
      ),
      [`notify_unpublished_relinking_${RELINK_PAGES}_pages`]: await requestsOf(
        stack,
        () => svc('POST', '/api/content/notify', { id: target.id, type: 'article', action: 'unpublished' }),
        200,
      ),
    };
    for (const [name, { requests, operations }] of Object.entries(dynamodb))
      console.log(`${name.padEnd(42)} ${requests} ${JSON.stringify(operations)}`);
    const dynamodbCold = {
      publish_new: http.http_cold.publish.dynamodb_requests,
      publish_replace: http.http_cold.replace.dynamodb_requests,
      read: http.http_cold.read.dynamodb_requests,
      visitor: http.http_cold.visitor.dynamodb_requests,
    };
    console.log(`cold (the key and the site not cached), the request's own: ${JSON.stringify(dynamodbCold)}`);

    // Provider calls of an editor's workflow, run twice on the same topic: the usage ledger counts them.
    console.log(
      '\nProvider calls of an editor workflow (get_keywords, serp_landscape list, analyze, serp_keyword_refresh), run twice:',
    );
    const tool = async (name: string, body: unknown) => {
      const answer = await svc('POST', `/v1/tools/${name}`, body);
      if (answer.status !== 200) throw new Error(`${name}: ${answer.status} ${answer.body.slice(0, 300)}`);
      return JSON.parse(answer.body) as { row?: { id: number }; research?: { status: string } };
    };
    const usage = async () => JSON.parse((await svc('GET', '/v1/usage')).body) as { calls: number; cost_usd: number };
    const topic = (await tool('db_insert', { table: 'cm_topics', row: { name: 'Trail running' } })).row!;
    const seeds = [
      'trail running shoes',
      'trail shoes',
      'waterproof trail shoes',
      'trail running vest',
      'trail running poles',
    ];
    const workflow = async () => {
      const steps: Record<string, number> = {};
      const step = async (name: string, run: () => Promise<unknown>) => {
        const before = (await usage()).calls;
        await run();
        await stack.drain();
        steps[name] = (await usage()).calls - before;
      };
      const start = await usage();
      await step('get_keywords', () => tool('get_keywords', { topic_id: topic.id, seeds }));
      await step('serp_landscape_list', () => tool('serp_landscape', { topic_id: topic.id, depth: 'list' }));
      await step('serp_landscape_analyze', async () => {
        // analyze answers partial while its research jobs run; the same call later collects them.
        for (let i = 0; i < 10; i++) {
          const reply = await tool('serp_landscape', { topic_id: topic.id, depth: 'analyze', wait_ms: 5000 });
          if (reply.research?.status === 'complete') return;
          await stack.drain();
        }
        throw new Error('analyze did not complete');
      });
      await step('serp_keyword_refresh', () => tool('serp_keyword_refresh', { keyword: seeds[0] }));
      const end = await usage();
      return { calls: end.calls - start.calls, cost_usd: round(end.cost_usd - start.cost_usd, 6), by_step: steps };
    };
    const first = await workflow();
    const second = await workflow();
    console.log(`first run  ${first.calls} calls ${JSON.stringify(first.by_step)}`);
    console.log(`second run ${second.calls} calls ${JSON.stringify(second.by_step)}`);

    // Rank tracking: the topic's keywords checked daily; the ledger counts the checks, the collect queue the posts.
    console.log(
      `\nRank tracking: the topic's ${seeds.length} keywords tracked daily, the schedule run for ${RANK_DAYS} days:`,
    );
    const rankUsage = async () =>
      (
        JSON.parse((await svc('GET', '/v1/usage?from=2000-01-01T00:00:00.000Z&to=2100-01-01T00:00:00.000Z')).body) as {
          by_tool: Array<{ tool: string; calls: number }>;
        }
      ).by_tool
        .filter((line) => line.tool === 'rank_tracking')
        .reduce((sum, line) => sum + line.calls, 0);
    const postsBefore = stack.queues['rank-collect'].sent;
    await tool('track_rankings', { topic_id: topic.id, cadence: 'daily' });
    await stack.drain();
    for (let day = 1; day < RANK_DAYS; day++) {
      await stack.runSchedule(new Date(Date.now() + day * 86_400_000));
      await stack.drain();
    }
    const checks = await rankUsage();
    const rankPosts = stack.queues['rank-collect'].sent - postsBefore;
    // On DataForSEO each post is one call and each check one free task_get when it is ready (more when not).
    const perThousand = (posts: number, made: number) => Math.round(((posts + made) / made) * 1000);
    const perKeywordMonth = (cadence: 'daily' | 'weekly', depth: number) =>
      monthlyUsd(CHECKS_PER_MONTH[cadence], rankCheckPrice(depth));
    const rankTracking = {
      checks,
      posts: rankPosts,
      provider_calls_per_1000_checks: perThousand(rankPosts, checks),
      provider_calls_per_1000_checks_at_50_keywords: perThousand(1000 / 50, 1000),
      usd_per_keyword_month: {
        daily_top20: perKeywordMonth('daily', 20),
        daily_top10: perKeywordMonth('daily', 10),
        daily_top100: perKeywordMonth('daily', 100),
        weekly_top20: perKeywordMonth('weekly', 20),
      },
    };
    console.log(
      `${checks} checks in ${rankPosts} posts: ${rankTracking.provider_calls_per_1000_checks} provider calls per 1,000 checks at ${seeds.length} keywords a site (${rankTracking.provider_calls_per_1000_checks_at_50_keywords} at 50: a post per 100 tasks, a task_get per check)`,
    );
    console.log(
      `cost per tracked keyword per month at list prices: ${JSON.stringify(rankTracking.usd_per_keyword_month)}`,
    );

    // The MCP tool listing an agent reads before anything else.
    const listed = await send(
      stack.url,
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { ...auth, accept: 'application/json, text/event-stream' },
    );
    if (listed.status !== 200) throw new Error(`tools/list: ${listed.status}`);
    const mcpToolsListBytes = Buffer.byteLength(listed.body);
    console.log(`\nMCP tools/list: ${mcpToolsListBytes} bytes`);

    const built = await bundleFigures(dir);
    const visitorPages = await pageFigures();

    const figures = {
      bench: 'content-api',
      at: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      ...http,
      dynamodb_requests: Object.fromEntries(Object.entries(dynamodb).map(([name, { requests }]) => [name, requests])),
      dynamodb_requests_cold: dynamodbCold,
      provider_calls: { first_run: first, second_run: second, second_run_paid_calls: second.calls },
      rank_tracking: rankTracking,
      bundles: built.bundles,
      mcp_tools_list_bytes: mcpToolsListBytes,
      mcp_front_door: built.mcp_front_door,
      research_worker_largest_page: built.research_worker_largest_page,
      visitor_pages: visitorPages,
    };
    console.log(JSON.stringify(figures));
  } finally {
    agent.destroy();
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
