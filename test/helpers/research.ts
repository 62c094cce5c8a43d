import type { BudgetTicket } from '@cm/contract';
import { SandboxResearch } from '@cm/providers';
import { newJobId } from '@cm/tools';
import { apiClient } from './client';
import { useTestStack, withStackEnv, type TestStack } from './local';

/* What the research tests share: a site of their own, other job timings, and the cap's invariant. */

/** A site of its own for a research test, with its tool calls and reads under its key (typed: `client`). */
async function researchSite(t: TestStack) {
  const created = await t.newSite('Research site', { domain: 'shoes.example.com', locale: 'US/en' });
  const tool = (name: string, body: unknown) => t.call('POST', `/v1/tools/${name}`, body, { key: created.key });
  const get = (path: string) => t.call('GET', path, undefined, { key: created.key });
  return { ...created, tool, get, client: apiClient(t, created.key) };
}

/** The count never drifts from the number of live leases. */
async function slotsConsistent(t: TestStack) {
  const state = await t.store.researchSlots.state();
  expect(state.inflight).toBe(Object.keys(state.leases).length);
  return state;
}

/**
 * A web research job of the site for `query`, stored as the research tool leaves it: its hold
 * on the budget when it has one (`ticket`), leased until `leaseUntil` when given; its id.
 */
export async function storedResearchJob(
  t: TestStack,
  job: { siteId: number; query: string; ticket?: BudgetTicket; leaseUntil?: number },
): Promise<string> {
  const jobId = newJobId();
  await t.store.jobs.create({
    job_id: jobId,
    site_id: job.siteId,
    tool: 'research',
    input: { mode: 'web', query: job.query, question: null, page_id: null },
    ...(job.ticket === undefined ? {} : { budget: job.ticket }),
    created_at: new Date().toISOString(),
    ...(job.leaseUntil === undefined ? {} : { lease_until: job.leaseUntil }),
  });
  return jobId;
}

/**
 * Runs `during` while no research job can start (each stays queued, holding its place), then lets them
 * start: what a test asserts of a job in process holds however slow the machine.
 */
export async function whilePaused(t: TestStack, during: () => Promise<void>) {
  t.stack.queues.research.pause();
  try {
    await during();
  } finally {
    t.stack.queues.research.resume();
  }
}

/** {@link whilePaused}, then the jobs run and end. */
export async function whileQueued(t: TestStack, during: () => Promise<void>) {
  try {
    await whilePaused(t, during);
  } finally {
    await t.stack.drain();
  }
}

/**
 * Holds every sandbox research call, in every worker, until `release()`: workers hung in their provider
 * call for as long as a test needs, not for a time that a slow machine may outlast. `release()` lets
 * them go on and resolves once the research queue has no worker left running (a paused queue's waiting
 * messages have none).
 */
export function holdResearch(t: TestStack) {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  const research = SandboxResearch.prototype.research;
  const held = jest.spyOn(SandboxResearch.prototype, 'research').mockImplementation(async function (
    this: SandboxResearch,
    ...args
  ) {
    await opened;
    return research.apply(this, args);
  });
  return {
    async release() {
      open();
      held.mockRestore();
      while (t.stack.queues.research.inFlight > 0) await pause(10);
    },
  };
}

/**
 * A research test file's stack (sandbox jobs of 300 ms unless a test says otherwise, and `env`), with
 * the helpers above bound to it.
 */
export function useResearchStack(env: Record<string, string> = {}) {
  const t = useTestStack({ env: { SANDBOX_RESEARCH_MS: '300', ...env } });
  return {
    t,
    site: () => researchSite(t),
    /** Runs a test on sandbox jobs of another length (and leases of another length), then restores both. */
    withTimings: (env: { SANDBOX_RESEARCH_MS: string; RESEARCH_LEASE_MS?: string }, run: () => Promise<void>) =>
      withStackEnv(t, env, run),
    slotsConsistent: () => slotsConsistent(t),
    whilePaused: (during: () => Promise<void>) => whilePaused(t, during),
    whileQueued: (during: () => Promise<void>) => whileQueued(t, during),
  };
}

/** Waits `ms` of real time: for what runs on its own timers (jobs, leases). */
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
