import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDocumentClient, createStore } from '@cm/store';

/*
 * `npm start` killed with SIGKILL in the middle of a burst of research jobs, then started again on the
 * same data directory: every job accepted before the crash runs to its end, and the cap of 10 is free
 * again. (A job whose lease lapses first ends `lease_expired`: test/e2e/job-leases.test.ts.)
 */

const ROOT = join(__dirname, '..', '..');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `npm start` as a child process; resolves once it serves. */
function start(env: Record<string, string>): Promise<ChildProcess> {
  // One process (tsx as node's loader, not its wrapper), so SIGKILL kills the stack itself.
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'packages/local/src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Content API on')) resolve(child);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the stack exited (${code}) before it served:\n${output}`)));
  });
}

const exited = (child: ChildProcess) =>
  new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)));

it('finishes, after a restart, every research job accepted before a kill -9, and frees the cap', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cm-crash-'));
  const [port, dynamoPort] = [await freePort(), await freePort()];
  const env = {
    PORT: String(port),
    DYNAMODB_PORT: String(dynamoPort),
    DATA_DIR: dataDir,
    SANDBOX_RESEARCH_MS: '3000',
    // Longer than a restart takes: the jobs' own messages, kept on disk, run them before their leases lapse.
    RESEARCH_LEASE_MS: '20000',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  };
  const url = `http://127.0.0.1:${port}`;
  let child = await start(env);
  try {
    const { api_key: key } = JSON.parse(readFileSync(join(dataDir, 'demo-site.json'), 'utf8')) as { api_key: string };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };

    const burst = await Promise.all(
      Array.from({ length: 12 }, (_v, i) => call('POST', '/v1/tools/research', { mode: 'web', seed: `crash burst ${i}`, wait_ms: 0 })),
    );
    const accepted = burst.filter((r) => r.status === 200).map((r) => String(r.body.job_id));
    expect(accepted).toHaveLength(10);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(2);

    // Mid-burst: the jobs are queued or running (each takes 3 s) when the process is killed.
    child.kill('SIGKILL');
    await exited(child);
    child = await start(env);

    const ends = await Promise.all(
      accepted.map(async (jobId) => {
        for (let i = 0; i < 8; i++) {
          const job = await call('GET', `/v1/jobs/${jobId}?wait_ms=5000`);
          if (job.body.status === 'succeeded' || job.body.status === 'failed') return job.body.status === 'failed' ? job.body.error.code : 'succeeded';
        }
        return 'still running';
      }),
    );
    // Delivered again from the queue's journal, as SQS would after a worker's crash: each job runs to its end.
    expect(ends).toEqual(Array(10).fill('succeeded'));

    const store = createStore(createDocumentClient({ endpoint: `http://127.0.0.1:${dynamoPort}` }), 'content');
    expect(await store.researchSlots.state()).toEqual({ inflight: 0, leases: {} });
    expect((await call('POST', '/v1/tools/research', { mode: 'web', seed: 'after the crash', wait_ms: 0 })).status).toBe(200);
  } finally {
    child.kill('SIGTERM');
    await exited(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 120_000);
