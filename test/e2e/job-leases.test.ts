import { QUEUES, RESEARCH_LEASE_MS, type BudgetTicket } from '@cm/contract';
import { normalizedResearchQuery, utcDay } from '@cm/core';
import { loadConfig } from '@cm/runtime';
import { SiteBudget } from '@cm/tools';
import { startTestStack, type TestStack } from '../helpers/local';
import { apiClient, given } from '../helpers/client';
import { storedResearchJob } from '../helpers/research';

/* A research job whose lease lapsed (its worker died, its message was lost) ends failed, and its place under the cap is freed. */

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_RESEARCH_MS: '200' } });
}, 60_000);
afterAll(() => t.stop());

/** The job `jobId` as GET /v1/jobs/{job_id} answers it to `key`'s site. */
const readJob = async (jobId: string, key = t.key) =>
  (await apiClient(t, key).route('GET /v1/jobs/{job_id}', { params: { job_id: jobId } })).body;
/** The code of the error the job `jobId` ended with, as GET /v1/jobs/{job_id} answers it. */
const jobError = async (jobId: string, key = t.key) => given((await readJob(jobId, key)).error, 'the job error').code;

/** A job as a crashed stack leaves it: `status`, leased until `leaseUntil`, with a place under the cap until `placeUntil` (or none). */
async function abandoned(
  status: 'queued' | 'running',
  leaseUntil: number,
  placeUntil: number | null,
  query = 'abandoned',
) {
  const jobId = await storedResearchJob(t, { siteId: t.siteId, query, leaseUntil });
  if (status === 'running') await t.store.jobs.start(jobId, new Date().toISOString(), leaseUntil);
  if (placeUntil !== null) expect((await t.store.researchSlots.take(jobId, placeUntil)).taken).toBe(true);
  return jobId;
}

it('leases a job just past the research worker’s time limit by default; RESEARCH_LEASE_MS sets another', () => {
  const limitMs = QUEUES.research.timeoutSeconds * 1000;
  expect(RESEARCH_LEASE_MS).toBeGreaterThan(limitMs);
  expect(RESEARCH_LEASE_MS).toBeLessThanOrEqual(limitMs + 30_000);
  expect(loadConfig({ TABLE_NAME: 'x' }).researchLeaseMs).toBe(RESEARCH_LEASE_MS);
  expect(loadConfig({ TABLE_NAME: 'x', RESEARCH_LEASE_MS: '5000' }).researchLeaseMs).toBe(5000);
});

it('gives each site 5 of the 10 research places by default; RESEARCH_SITE_PLACES sets another, from 1 to 10', () => {
  expect(loadConfig({ TABLE_NAME: 'x' }).researchSitePlaces).toBe(5);
  expect(loadConfig({ TABLE_NAME: 'x', RESEARCH_SITE_PLACES: '2' }).researchSitePlaces).toBe(2);
  for (const bad of ['0', '11', '2.5', 'five'])
    expect(() => loadConfig({ TABLE_NAME: 'x', RESEARCH_SITE_PLACES: bad })).toThrow(/RESEARCH_SITE_PLACES/);
});

it('reads a job whose lease lapsed as failed lease_expired (retryable), and frees its place', async () => {
  const past = Date.now() - 1000;
  const jobId = await abandoned('running', past, past);
  const read = await apiClient(t).route('GET /v1/jobs/{job_id}', { params: { job_id: jobId } });
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({
    job_id: jobId,
    status: 'failed',
    error: { code: 'lease_expired', retryable: true, message: expect.any(String) },
  });
  expect((await t.store.researchSlots.state()).leases[jobId]).toBeUndefined();
  // Ended once: a later read says the same.
  expect(await jobError(jobId)).toBe('lease_expired');
});

/** A web research job of the site holding `ticket` on its budget, whose lease lapsed at `leaseUntil`. */
const lapsedJob = (siteId: number, query: string, ticket: BudgetTicket, leaseUntil: number) =>
  storedResearchJob(t, { siteId, query, ticket, leaseUntil });

it('cancels the hold a lapsed job that never started placed on the budget when it was accepted', async () => {
  const past = Date.now() - 1000;
  const site = await t.newSite('Lapsed budget');
  const day = utcDay(new Date());
  const ticket = {
    hold_id: 'lapsed-hold',
    estimate_usd: 0.05,
    day,
    deployment: false,
    lease_until: Date.now() + 3_600_000,
  };
  const hold = { id: ticket.hold_id, expiresAt: ticket.lease_until };
  expect((await t.store.budgets.reserve({ siteId: site.siteId }, day, hold, ticket.estimate_usd, {})).reserved).toBe(
    true,
  );
  const jobId = await lapsedJob(site.siteId, 'lapsed with a budget', ticket, past);
  const budget = async () => (await apiClient(t, site.key).route('GET /v1/budget')).body.daily;
  expect(await budget()).toMatchObject({ reserved_usd: 0.05, spent_usd: 0 });
  expect(await jobError(jobId, site.key)).toBe('lease_expired');
  expect(await budget()).toMatchObject({ reserved_usd: 0, spent_usd: 0 });
});

it('keeps the hold of a lapsed job that had started, which its worker, alive after all, settles to its bill', async () => {
  const past = Date.now() - 1000;
  const site = await t.newSite('Lapsed while running');
  const budget = new SiteBudget(t.store, site.siteId, { deploymentDailyUsd: null, now: () => new Date() });
  const ticket = given(await budget.reserveQueued(0.05), 'the reserveQueued');
  const jobId = await lapsedJob(site.siteId, 'lapsed while running', ticket, past);
  await t.store.jobs.start(jobId, new Date().toISOString(), past);
  const daily = async () => (await apiClient(t, site.key).route('GET /v1/budget')).body.daily;
  expect(await jobError(jobId, site.key)).toBe('lease_expired');
  // Its paid calls may be pending in the ledger: the hold still counts them.
  expect(await daily()).toMatchObject({ reserved_usd: 0.05, spent_usd: 0 });
  await budget.settle(ticket, 0.02, false);
  expect(await daily()).toMatchObject({ reserved_usd: 0, spent_usd: 0.02 });
});

it('ends a lapsed job whose place a new research call takes back when the cap is full, so the sweep need not find it', async () => {
  const past = Date.now() - 1000;
  const future = Date.now() + 60_000;
  const lapsed = await abandoned('running', past, past, 'lapsed, place taken back');
  const live = await Promise.all(
    Array.from({ length: 9 }, (_v, i) => abandoned('queued', future, future, `live ${i}`)),
  );
  const fresh = await apiClient(t).tool('research', { mode: 'web', seed: 'takes the lapsed place', wait_ms: 0 });
  expect(fresh.status).toBe(200);
  // Read from the store, not through GET /v1/jobs (which would end it itself).
  expect(await t.store.jobs.get(lapsed)).toMatchObject({ status: 'failed', error: { code: 'lease_expired' } });
  await t.stack.drain();
  for (const jobId of live) await t.store.researchSlots.free(jobId);
});

it('leaves a job whose lease is alive as it is', async () => {
  const future = Date.now() + 60_000;
  const jobId = await abandoned('queued', future, future);
  expect((await readJob(jobId)).status).toBe('queued');
  expect((await t.store.researchSlots.state()).leases[jobId]).toBe(future);
  await t.store.researchSlots.free(jobId);
});

it('sweeps: lapsed jobs end lease_expired, places of ended jobs are freed, live ones are kept', async () => {
  const past = Date.now() - 1000;
  const future = Date.now() + 60_000;
  const lapsed = await abandoned('running', past, past);
  const ended = await abandoned('running', past, past);
  const nothingFound = {
    research_id: 'res_none',
    facts: [],
    opinions: [],
    sources: [],
    data_source: 'sandbox',
    cost_usd: 0,
  };
  await t.store.jobs.finish(ended, { result: nothingFound }, new Date().toISOString());
  const alive = await abandoned('running', future, future);
  expect(await t.stack.sweep()).toEqual({ expired: 1, freed: 1, admitted: 0 });
  expect((await t.store.jobs.get(lapsed))?.error?.code).toBe('lease_expired');
  expect((await t.store.jobs.get(ended))?.status).toBe('succeeded');
  expect(await t.store.researchSlots.state()).toEqual({ inflight: 1, leases: { [alive]: future }, groups: {} });
  await t.store.researchSlots.free(alive);
});

it('takes over an analyze keyword whose job lapsed at once, instead of answering partial until the claim is 15 minutes old', async () => {
  const keyword = 'lapsed trail shoes';
  const jobId = await abandoned('queued', Date.now() - 1000, null, keyword);
  const now = new Date().toISOString();
  expect(
    await t.store.research.claimQuery(t.siteId, normalizedResearchQuery('web', keyword, null), jobId, now, now),
  ).toBe(true);
  const reply = await apiClient(t).tool('serp_landscape', { keyword, depth: 'analyze', wait_ms: 10_000 });
  expect(reply.status).toBe(200);
  const research = given(reply.body.research, 'the research');
  expect(research).toMatchObject({ status: 'complete', in_process: [] });
  expect(Object.keys(research.facts_by_keyword)).toEqual([keyword]);
  expect((await t.store.jobs.get(jobId))?.error?.code).toBe('lease_expired');
});
