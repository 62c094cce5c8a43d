import { createDocumentClient, createStore } from '@cm/store';
import { startProcessStack } from '../helpers/process-stack';

/*
 * `npm start` killed with SIGKILL in the middle of a burst of research jobs, then started again on the
 * same data directory: every job accepted before the crash runs to its end, and the cap of 10 is free
 * again. (A job whose lease lapses first ends `lease_expired`: test/e2e/job-leases.test.ts.)
 */

it('finishes, after a restart, every research job accepted before a kill -9, and frees the cap', async () => {
  const stack = await startProcessStack({
    // Longer than the burst takes on a busy machine, so no job ends (and frees a place) before all 12 are answered.
    SANDBOX_RESEARCH_MS: '6000',
    // Longer than a restart takes (one of Amazon DynamoDB Local, a JVM, on a busy machine too): the jobs' own
    // messages, kept on disk, run them before their leases lapse. At 20 s, 5 of 10 lapsed once in CI.
    RESEARCH_LEASE_MS: '60000',
    // One key makes the burst: its site may hold all 10 places here (the cap is what this test is about).
    RESEARCH_SITE_PLACES: '10',
  });
  const { call } = stack;
  try {
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_v, i) =>
        call('POST', '/v1/tools/research', { mode: 'web', seed: `crash burst ${i}`, wait_ms: 0 }),
      ),
    );
    const accepted = burst.filter((r) => r.status === 200).map((r) => String(r.body.job_id));
    expect(accepted).toHaveLength(10);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(2);

    // Mid-burst: the jobs are queued or running (each takes 6 s) when the process is killed. Delivered again
    // after the restart, they need outlast nothing: there they take the sandbox's 300 ms.
    await stack.crashAndRestart({ SANDBOX_RESEARCH_MS: '300' });

    const ends = await Promise.all(accepted.map((jobId) => stack.jobEnd(jobId)));
    // Delivered again from the queue's journal, as SQS would after a worker's crash: each job runs to its end.
    expect(ends).toEqual(Array(10).fill('succeeded'));

    // A job ends, then its worker frees its place (in that order, so a crash between them never runs a job
    // twice): the places are free soon after the last job ended, not in the same instant.
    const store = createStore(createDocumentClient({ endpoint: stack.dynamoEndpoint }), 'content');
    const deadline = Date.now() + 10_000;
    let slots = await store.researchSlots.state();
    while (slots.inflight > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      slots = await store.researchSlots.state();
    }
    expect(slots).toEqual({ inflight: 0, leases: {}, groups: {} });
    expect(
      (await call('POST', '/v1/tools/research', { mode: 'web', seed: 'after the crash', wait_ms: 0 })).status,
    ).toBe(200);
  } finally {
    await stack.stop();
  }
}, 120_000);
