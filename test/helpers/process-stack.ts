import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * `npm start` as a child process on a data directory of its own and free ports, for the tests that kill
 * it (SIGKILL) and start it again on the same data.
 */

const ROOT = join(__dirname, '..', '..');

/**
 * A port free now, drawn below the ephemeral ranges (Linux 32768–60999, macOS 49152–65535): those give
 * `listen(0)` and every outgoing connection of the machine their ports, so one of the many sockets the
 * other tests open could take a port from there in the seconds before the stack binds it.
 */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + randomInt(12_000);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }
}

const freePorts = async () => ({
  PORT: String(await freePort()),
  // Free too: the default, PORT + 1, may be taken.
  MCP_STREAM_PORT: String(await freePort()),
  DYNAMODB_PORT: String(await freePort()),
});

/** `npm start` as a child process; resolves once it serves and has printed what it prints at start. */
function spawnStack(env: Record<string, string>, args: string[]): Promise<{ child: ChildProcess; printed: string }> {
  // One process (tsx as node's loader, not its wrapper), so SIGKILL kills the stack itself.
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'packages/local/src/main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // The last line it prints at start.
      if (!output.includes('OpenAPI: ')) return;
      child.stdout.off('data', onData);
      child.stderr.off('data', onData);
      resolve({ child, printed: output });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the stack exited (${code}) before it served:\n${output}`)));
  });
}

export const exited = (child: ChildProcess) =>
  new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve),
  );

export interface ProcessStack {
  url: string;
  /** The embedded DynamoDB's endpoint (table `content`). */
  dynamoEndpoint: string;
  /** The demo site's key. */
  key: string;
  /** What `npm start` printed when it (last) started. */
  printed: string;
  /** The stack's process id (the node process itself). */
  pid: number;
  /** The last 64 KB the stack has printed (stdout and stderr) since it (last) started. */
  output(): string;
  /** How the stack's process ended, or null while it runs. */
  ended(): { code: number | null; signal: string | null } | null;
  /** A JSON request with the demo key; the body parsed. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }>;
  /** How a job ended (`succeeded`, or its error code when it failed), waiting up to 40 s; `still running` if it did not. */
  jobEnd(jobId: string): Promise<string>;
  /** kill -9, then `npm start` again on the same data directory and ports, with `env` added to its environment. */
  crashAndRestart(env?: Record<string, string>): Promise<void>;
  /** Stops the stack (SIGTERM) and deletes its data directory. */
  stop(): Promise<void>;
}

/** `npm start [-- args]` on a new data directory and free ports, with `env` added to this process's environment. */
export async function startProcessStack(env: Record<string, string> = {}, args: string[] = []): Promise<ProcessStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cm-crash-'));
  const fullEnv = {
    ...(await freePorts()),
    DATA_DIR: dataDir,
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    // Bursts from one address, which WAF's per-address rule would count: the rate rules have their own test.
    RATE_LIMITS: 'off',
    ...env,
  };
  let started: Awaited<ReturnType<typeof spawnStack>> | undefined;
  // Another test's stack may have drawn the same port in the moment between: new ones, then.
  for (let attempt = 1; !started; attempt++) {
    started = await spawnStack(fullEnv, args).catch((error: Error) => {
      if (attempt === 3 || !error.message.includes('A port is in use')) throw error;
      return undefined;
    });
    if (!started) Object.assign(fullEnv, await freePorts());
  }
  let { child, printed } = started;
  /** The crash and restart under way, if any: stop() waits for it. */
  let restarting: Promise<void> | undefined;
  let output = '';
  const follow = () => {
    output = printed;
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-65_536);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  };
  follow();
  const url = `http://127.0.0.1:${fullEnv.PORT}`;
  // As it prints it (in memory, it is written nowhere else); without it every keyed call would be a quiet 401.
  const key = /API key (\S+)/.exec(printed)?.[1];
  if (!key) throw new Error(`npm start printed no API key:\n${printed}`);
  const call: ProcessStack['call'] = async (method, path, body) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  return {
    url,
    dynamoEndpoint: `http://127.0.0.1:${fullEnv.DYNAMODB_PORT}`,
    key,
    get printed() {
      return printed;
    },
    get pid() {
      return child.pid!;
    },
    output: () => output,
    ended: () =>
      child.exitCode === null && child.signalCode === null ? null : { code: child.exitCode, signal: child.signalCode },
    call,
    async jobEnd(jobId) {
      for (let i = 0; i < 8; i++) {
        const job = await call('GET', `/v1/jobs/${jobId}?wait_ms=5000`);
        if (job.body.status === 'succeeded') return 'succeeded';
        if (job.body.status === 'failed') return String(job.body.error.code);
      }
      return 'still running';
    },
    crashAndRestart(env = {}) {
      restarting = (async () => {
        child.kill('SIGKILL');
        await exited(child);
        Object.assign(fullEnv, env);
        ({ child, printed } = await spawnStack(fullEnv, args));
        follow();
      })();
      return restarting;
    },
    async stop() {
      // A restart still under way would leave its new stack running, and jest waiting on it.
      await restarting?.catch(() => undefined);
      child.kill('SIGTERM');
      await exited(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
