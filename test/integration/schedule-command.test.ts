import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureTable, startDynamo, type EmbeddedDynamo } from '@cm/local';
import { createDocumentClient, createStore, type Store } from '@cm/store';
import { runScheduleCommand } from '../../packages/local/src/schedule';
import { keywordFields } from '../helpers/rows';

/*
 * `npm run schedule -- --date YYYY-MM-DD` against a table, as a demo or a test runs it: the day's
 * schedule and everything it queues, offline on the sandbox. The first run and the refused date are the
 * CLI in a process of its own (its output, its exit code); the others run what it runs
 * (runScheduleCommand) in this one, as each process would load the whole service again.
 */

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const TABLE = 'schedule-test';

let dynamo: EmbeddedDynamo;
let store: Store;
let siteId: number;

beforeAll(async () => {
  dynamo = await startDynamo({ port: 0 });
  await ensureTable(dynamo.endpoint, TABLE);
  store = createStore(createDocumentClient({ endpoint: dynamo.endpoint }), TABLE);
  const now = '2026-03-01T00:00:00.000Z';
  siteId = (await store.sites.create({ name: 'Scheduled', domain: 'scheduled.example.com', locale: 'US/en' })).site
    .site_id;
  const topic = await store.rows.insert(siteId, 'cm_topics', { name: 'Bikes' }, now);
  for (const keyword of ['gravel bike', 'bike lights']) {
    const row = await store.rows.insert(siteId, 'cm_keywords', keywordFields(keyword, { volume: 1000 }), now);
    await store.rows.insert(siteId, 'cm_topic_keywords', { topic_id: topic.id, keyword_id: row.id }, now);
  }
  await store.ranks.track(
    siteId,
    { type: 'topic', id: topic.id },
    { cadence: 'daily', max_keywords: 50 },
    new Date(now),
  );
  await store.sites.markRankTracking(siteId);
}, 60_000);
afterAll(() => dynamo.close());

/** The CLI, in a process of its own. */
const scheduleProcess = (...args: string[]) =>
  run('npx', ['tsx', 'packages/local/src/schedule-cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DYNAMODB_ENDPOINT: dynamo.endpoint, TABLE_NAME: TABLE },
  });

/** What the CLI runs, in this process, with `env` set for the handlers it runs (and put back after). */
async function scheduleWith(env: Record<string, string>, ...args: string[]) {
  const saved = { ...process.env };
  Object.assign(process.env, { DYNAMODB_ENDPOINT: dynamo.endpoint, TABLE_NAME: TABLE, ...env });
  const out = { code: 0, stdout: '', stderr: '' };
  try {
    out.code = await runScheduleCommand(args, {
      log: (line) => (out.stdout += `${line}\n`),
      error: (line) => (out.stderr += `${line}\n`),
    });
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
  return out;
}

describe('npm run schedule', () => {
  it("runs a day's schedule to its end: the site's checks posted and collected, dated that day; run again, nothing is checked twice", async () => {
    const first = await scheduleProcess('--date', '2026-03-02');
    expect(JSON.parse(first.stdout)).toMatchObject({
      date: '2026-03-02',
      sites: 1,
      plans: 1,
      messages: { 'monitor-plan': 1, monitor: 1, rank: 1, 'rank-collect': 1 },
      dead_letters: 0,
    });
    for (const keyword of ['gravel bike', 'bike lights'])
      expect((await store.ranks.latest(siteId, 'US/en', keyword, 30)).rows.map((r) => r.day)).toEqual(['2026-03-02']);
    const again = await scheduleWith({}, '--date', '2026-03-02');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).messages).toMatchObject({ rank: 1, 'rank-collect': 0 });
  }, 60_000);

  it("says when it stopped short of the deployment's daily cap: nothing planned, and why", async () => {
    // A cap of $0 leaves the schedule's work no share of it.
    const stopped = await scheduleWith({ GLOBAL_DAILY_BUDGET_USD: '0' }, '--date', '2026-03-03');
    expect(stopped.code).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({
      date: '2026-03-03',
      sites: 0,
      plans: 0,
      budget: { cap_usd: 0, scheduled_cap_usd: 0, used_usd: 0, stopped: true },
      messages: { 'monitor-plan': 0, monitor: 0, rank: 0 },
    });
  }, 60_000);

  it('refuses a date that is none, with exit code 2', async () => {
    // The CLI's own process: its exit code is the command's.
    await expect(scheduleProcess('--date', '2026-02-30')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--date: must be a date YYYY-MM-DD'),
    });
  }, 30_000);
});
