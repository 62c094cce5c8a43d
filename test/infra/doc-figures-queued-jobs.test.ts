import { DEFAULT_BUDGETS, QUEUES } from '@cm/contract';
import { RECURSIVE_LOOP_LIMIT, ROUTE_TIMEOUT_MS } from '@cm/local';
import { SITES_PER_PLAN } from '@cm/tools';
import { DEPLOYMENT_SPEND_SHARDS } from '../../packages/store/src/keys';
import { constantIn, section } from './doc-text';

/*
 * docs/architecture/queued-jobs.md's monitoring and rank-tracking sections state the code's settings:
 * each claim below is a phrase made from the code's constants (the queues' as QUEUES declares them, which
 * doc-figures.test.ts compares with the template's). Their measured figures (scale runs' requests and
 * times) and DataForSEO's are not compared here yet.
 */
const CLAIMS_AT_ONCE = constantIn('packages/tools/src/rank-checks.ts', 'CLAIMS_AT_ONCE');
const COLLECTS_AT_ONCE = constantIn('packages/tools/src/rank-collect.ts', 'COLLECTS_AT_ONCE');
const minutes = (seconds: number) => seconds / 60;

describe('docs/architecture/queued-jobs.md', () => {
  it("states monitoring's plans, share of the cap and time limits as the code has them", () => {
    const monitoring = section('architecture/queued-jobs.md', 'Monitoring');
    const claims = [
      `one \`monitor-plan\` message per block of ${SITES_PER_PLAN} site ids`,
      `one BatchGetItem of the cap's ${DEPLOYMENT_SPEND_SHARDS} parts`,
      `the cap the schedule's work may take (${100 - DEFAULT_BUDGETS.scheduleReservePct}%)`,
    ];
    expect(claims.filter((claim) => !monitoring.includes(claim))).toEqual([]);
  });

  it("states rank tracking's plans, batches, deliveries and time limits as the code has them", () => {
    const ranks = section('architecture/queued-jobs.md', 'Rank tracking');
    const collect = QUEUES['rank-collect'];
    // A queue hides a message for six times its worker's time limit (the queue table's rule).
    const hidden = minutes(6 * collect.timeoutSeconds);
    const claims = [
      `the plan worker that reads a block of ${SITES_PER_PLAN} sites`,
      `Lambda's loop detection stops a chain at ${RECURSIVE_LOOP_LIMIT}`,
      `its visibility timeout (${hidden} minutes), up to ${collect.maxReceiveCount} times (about ${hidden * collect.maxReceiveCount} minutes past the first try)`,
      `${COLLECTS_AT_ONCE} at a time (\`task_get\`, free)`,
      `Posts are at most the rank worker's ${QUEUES.rank.maxConcurrency} at a time`,
      `Collection is at most ${collect.maxConcurrency} workers × ${COLLECTS_AT_ONCE} reads in flight`,
      `a site's run has ${QUEUES.rank.timeoutSeconds} s: ${CLAIMS_AT_ONCE} claims at a time`,
      `in its ${collect.timeoutSeconds} s`,
      `the route's ${ROUTE_TIMEOUT_MS / 1000} s`,
    ];
    expect(claims.filter((claim) => !ranks.includes(claim))).toEqual([]);
  });
});
