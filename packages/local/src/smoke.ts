import { parseArgs } from 'node:util';
import * as z from 'zod/mini';
import { API_KEY_PREFIX } from '@cm/contract';
import type { SitesOutput } from './sites';

const USAGE = `Usage: npm run smoke -- --url API_URL --key API_KEY [--research-seconds N]

Checks a deployment as a client would, in three steps, and prints a line for each:
  1. GET /health?deep=1: the API answers and reaches its table.
  2. recall, a free tool call with the key: the key is valid and the tools run.
  3. research in web mode: a job is queued, runs and ends within --research-seconds (default 120);
     with real providers it pays for one web research (a few cents).
Exit code 0 when all pass, 1 at the first that fails (saying why), 2 for bad options.
API_URL is the stack's ApiUrl output; API_KEY a site's key (npm run sites -- create).`;

const Options = z.object({
  url: z.url({ protocol: /^https?$/, error: 'must be the API’s http(s) URL' }),
  key: z.string().check(z.startsWith(API_KEY_PREFIX, `must be a site’s API key (${API_KEY_PREFIX}…)`)),
  'research-seconds': z._default(
    z.coerce.number().check(z.int('must be whole seconds'), z.minimum(1, 'must be 1 or more')),
    120,
  ),
});

/** A step's failure: the line said before exiting 1. */
class StepFailed extends Error {}

const JobReply = z.looseObject({
  job_id: z.nullish(z.string()),
  status: z.string(),
  error: z.optional(z.looseObject({ code: z.optional(z.string()), message: z.optional(z.string()) })),
});

/**
 * `npm run smoke`: a deep health check, a free tool call and a research job against a deployed (or local)
 * API. Uses `fetchImpl` (a test's) or the global fetch.
 */
export async function runSmoke(argv: string[], out: SitesOutput, fetchImpl: typeof fetch = fetch): Promise<number> {
  let options: z.output<typeof Options>;
  try {
    const { values } = parseArgs({
      args: argv,
      options: { url: { type: 'string' }, key: { type: 'string' }, 'research-seconds': { type: 'string' } },
      strict: true,
    });
    const parsed = Options.safeParse(values);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) out.error(`--${issue.path.join('.')}: ${issue.message}`);
      out.error(USAGE);
      return 2;
    }
    options = parsed.data;
  } catch (error) {
    out.error(`smoke: ${error instanceof Error ? error.message : String(error)}`);
    out.error(USAGE);
    return 2;
  }
  const base = options.url.replace(/\/+$/, '');
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetchImpl(`${base}${path}`, {
      method,
      headers: { 'x-api-key': options.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch((error: unknown) => {
      throw new StepFailed(`cannot reach ${base}: ${error instanceof Error ? error.message : String(error)}`);
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // Not JSON: said below with the status.
    }
    return { status: res.status, json, text };
  };
  const expectOk = (step: string, reply: Awaited<ReturnType<typeof call>>) => {
    if (reply.status !== 200) throw new StepFailed(`${step}: HTTP ${reply.status} ${reply.text.slice(0, 300)}`);
  };
  const steps: [string, () => Promise<string>][] = [
    [
      'health (deep)',
      async () => {
        const reply = await call('GET', '/health?deep=1');
        expectOk('health', reply);
        return 'the API answers and reaches its table';
      },
    ],
    [
      'recall (free tool call)',
      async () => {
        const reply = await call('POST', '/v1/tools/recall', { query: 'smoke test' });
        expectOk('recall', reply);
        return 'the key is valid and the tools run';
      },
    ],
    [
      'research (web job)',
      async () => {
        const seed = `smoke test ${new Date().toISOString()}`;
        const started = await call('POST', '/v1/tools/research', { mode: 'web', seed, wait_ms: 0 });
        expectOk('research', started);
        const job = JobReply.safeParse(started.json);
        if (!job.success) throw new StepFailed(`research: an answer without a job: ${started.text.slice(0, 300)}`);
        const deadline = Date.now() + options['research-seconds'] * 1000;
        let state = job.data;
        while ((state.status === 'queued' || state.status === 'running') && state.job_id && Date.now() < deadline) {
          const wait = Math.min(20_000, Math.max(0, deadline - Date.now()));
          const reply = await call('GET', `/v1/jobs/${encodeURIComponent(state.job_id)}?wait_ms=${wait}`);
          expectOk('job', reply);
          const next = JobReply.safeParse(reply.json);
          if (!next.success) throw new StepFailed(`job: an answer without a status: ${reply.text.slice(0, 300)}`);
          state = next.data;
        }
        if (state.status === 'succeeded') return `job ${state.job_id ?? '(answered from storage)'} succeeded`;
        if (state.status === 'failed')
          throw new StepFailed(
            `research: job ${state.job_id} failed: ${state.error?.code} ${state.error?.message ?? ''}`,
          );
        throw new StepFailed(
          `research: job ${state.job_id} still ${state.status} after ${options['research-seconds']} s`,
        );
      },
    ],
  ];
  for (const [name, step] of steps) {
    const started = Date.now();
    try {
      const said = await step();
      out.log(`ok   ${name}: ${said} (${Date.now() - started} ms)`);
    } catch (error) {
      out.error(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
  }
  return 0;
}
