import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_BUDGETS, LIMITS, QUEUES } from '@cm/contract';
import { RECURSIVE_LOOP_LIMIT, ROUTE_TIMEOUT_MS } from '@cm/local';
import { BULK_TARGETS } from '@cm/providers';
import { SITES_PER_PLAN } from '@cm/tools';
import { DAILY_SCHEDULE_UTC } from '../../infra/constructs/schedules';
import { DEPLOYMENT_SPEND_SHARDS } from '../../packages/store/src/keys';
import { constantIn, expectOnlyFigures, listed, section, thousands, type FiguresWhy } from './doc-text';

/*
 * docs/architecture/queued-jobs.md's monitoring and rank-tracking sections state the code's settings:
 * each claim below is a phrase made from the code's constants (the queues' as QUEUES declares them, which
 * doc-figures.test.ts compares with the template's), and no other figure unless it is listed below as one
 * the code's constants do not make, with why: a scale run's requests and times, DataForSEO's prices and
 * limits, DynamoDB's batch sizes.
 */
const CLAIMS_AT_ONCE = constantIn('packages/tools/src/rank-checks.ts', 'CLAIMS_AT_ONCE');
const COLLECTS_AT_ONCE = constantIn('packages/tools/src/rank-collect.ts', 'COLLECTS_AT_ONCE');
const PLAN_WAITS = constantIn('packages/tools/src/monitoring.ts', 'PLAN_WAITS');
const PLAN_WAIT_MS = constantIn('packages/tools/src/monitoring.ts', 'PLAN_WAIT_MS');
const SENDS_AT_ONCE = constantIn('packages/tools/src/monitoring.ts', 'SENDS_AT_ONCE');
const HISTORY_QUERIES_AT_ONCE = constantIn('packages/tools/src/rank-history.ts', 'QUERIES_AT_ONCE');
const TASKS_PER_POST = constantIn('packages/providers/src/dataforseo/serp-queue.ts', 'TASKS_PER_POST');
const SHARED_KEEP_DAYS = constantIn('packages/store/src/shared.ts', 'KEEP_SECONDS') / 86_400;
const SCHEDULES = readFileSync(join(__dirname, '..', '..', 'infra', 'constructs', 'schedules.ts'), 'utf8');
/** The daily schedule's delivery: EventBridge's retries and the oldest event it still delivers, in hours. */
const [, SCHEDULE_RETRIES, SCHEDULE_EVENT_HOURS] = /retryAttempts: (\d+), maxEventAge: Duration\.hours\((\d+)\)/
  .exec(SCHEDULES)!
  .map(Number);
/** `monitor-schedule`'s time limit, in minutes. */
const SCHEDULE_MINUTES = Number(/lambda\('monitor-schedule', Duration\.minutes\((\d+)\)\)/.exec(SCHEDULES)![1]);
/** The page's estimates the code's limits are applied to: SQS sends, a DataForSEO read, DataForSEO's rate. */
const MESSAGES_A_SECOND = 100;
const READS_A_SECOND = 2;
const DATAFORSEO_CALLS_A_MINUTE = 2_000;
/** The calls a day of rank collection and of monitoring (before bulk), at the page's 10,000 sites. */
const [RANK_READS, MONITORING_CALLS] = [500_000, 560_000];
const minutes = (seconds: number) => seconds / 60;
const twoDigits = (n: number) => String(n).padStart(2, '0');
/** A section's prose without its list items' numbers. */
const sectionText = (heading: string) =>
  section('architecture/queued-jobs.md', heading).replace(/ \d\. (?=[*A-Z`])/g, ' ');

/** The monitoring section's figures its claims do not make, each with why, in the page's order. */
const MONITORING_NOT_THE_CODE: FiguresWhy = [
  ['site ids are numbered from 1', ['site ids run from 1 to it']],
  ["the shared item's size, measured", ['about 500 bytes']],
  ["DynamoDB's most keys a BatchGetItem", ['one BatchGetItem per 100']],
  [
    "a cached answer's price, $0 (decisions.md)",
    [
      'a `cached` ledger line at $0 for each',
      'adds a $0 cached line beside the paid one',
      "each domain's numbers paid once and 2,700 `cached` lines at $0",
    ],
  ],
  [
    "DataForSEO's price of a bulk request, its calls a profile, and the spec's scale (10,000 sites, 10 competitors)",
    [
      '100 domains a batch: 0.03 requests, $0.00069',
      'At 10,000 sites × 10 competitors with no competitor shared that is 3,300 bulk requests a day',
      'against 560,000 single-target calls before',
      'and $76 a day of numbers',
      'At 10,000 sites with 10 competitors each the schedule is 1 GetItem and 100 messages',
      'the plans make 100 BatchGetItems and send 10,000 messages',
      'the runs make about 15 DynamoDB requests per site (150,000 in all: 110,000 of them the claims) and 12 provider calls per site on the sandbox (on DataForSEO 5 per profile and 1 gap: 56 per site, 560,000 in all)',
      'makes 13 requests per site',
    ],
  ],
  [
    'measured by test/scale/monitoring-scale.test.ts at list prices',
    [
      '300 sites with 10 competitors each drawn from a niche of 300 domains (600 domains, 3,300 site-domain pairs)',
      '$288.84 on their first day',
      'the numbers in 6 bulk batches; $354.52 a day before bulk monitoring',
      'and $0.41 on the second (6 batches: $0.00069 a domain, $0.021 a month)',
      '30.6 a site for 11 domains (15.0 before), measured at 200 sites',
    ],
  ],
  ["an estimate of SQS's send time", ['about 1 s per 100 messages']],
  [
    "DataForSEO's rate limit, and the bill's 56 calls a site before bulk monitoring",
    [
      '(about 2,000 calls a minute): 560,000 calls take about 4.7 hours',
      'capped near 2000 / (56 calls per run × runs per minute per worker)',
    ],
  ],
  [
    'measured by test/scale/monitoring-scale.test.ts: its sizes, and its times on the machines named',
    [
      '1,000 sites × 10 competitors by default',
      "A site's first day takes about 30.6 DynamoDB requests",
      "twice the 15.0 of single-target monitoring, whose 10,000 sites took 347 s on an idle 2-core machine; 4,000 sites took 497 s of CI's scale suite, and 2,500 (76,426 requests: 30.57 a site, as at 500) most of the 325 s its file took there, so the default is 1,000",
      'with 500 sites',
      'at 2,500 it took 83 s and at 10,000 337 s more',
      'dies after 40% of its plan messages',
    ],
  ],
];

/** The rank-tracking section's figures its claims do not make, each with why, in the page's order. */
const RANKS_NOT_THE_CODE: FiguresWhy = [
  ['the steps of this list', ['step 5', 'steps 3 and 4']],
  [
    "DynamoDB's most keys a BatchGetItem, and items a BatchWriteItem",
    ['one BatchGetItem per 100 keywords', 'one BatchWriteItem per 25'],
  ],
  [
    "a cached answer's price, $0 (decisions.md)",
    ['a `cached: true` $0 ledger line each', 'the $0 lines of the checks read from the cache'],
  ],
  [
    "DataForSEO's: the turnaround of its normal priority, its results' retention, its error code",
    ["(DataForSEO's normal priority: 300 s,", 'DataForSEO keeps results 30 days', "the search engine's 40101"],
  ],
  [
    "the spec's scale (10,000 sites), a load assumed (50 keywords a site, SERPs shared 5 ways) and DataForSEO's price of a top-20 task",
    [
      'At 10,000 sites × 50 keywords, 500,000 checks a day',
      '(1 GetItem, 100 plan messages), the plans 10,000 rank messages more',
      "each site's run makes about 114 DynamoDB requests (50 claims of its checks and 50 of their SERPs",
      '2 ledger batches',
      'each collection 7 (1 read, 2 batches of shared SERPs, 2 of rank rows, 2 of SERP rows): about 1.2 million requests a day, 2.4 a check',
      'every item under 15 KB (a top-100 row or SERP)',
      'At 500,000 checks over, say, 100,000 distinct SERPs, that is 100,000 tasks ($105 a day at top 20, against $525 when each site paid its own), at most 10,000 posts and 100,000 `task_get`s',
      '10,000 posts and 500,000 `task_get`s a day (1,020 calls per 1,000 checks at 50 keywords a site)',
    ],
  ],
  [
    "DataForSEO's limits: its calls a minute an account, and its calls a minute of tasks_ready",
    ['DataForSEO takes 2,000 calls a minute per account', '(20 calls a minute)'],
  ],
  [
    "an estimate of a read's time (half a second), and the load above",
    ['at about half a second a read', "monitoring's 560,000 calls", 'its 9 hours are by design'],
  ],
  ["an estimate of a post's time", ['(a second or two each), so about 5,000 keywords a site a day fit one run']],
  [
    "a row's size at top 20 and top 100, measured; Lambda's payload limit",
    [
      "a keyword's year of rows is about 1 MB at top 20 (4 MB at top 100)",
      'so a year of 100 keywords is 100 to 400',
      'of about 1.5 MB',
      "Lambda's 6 MB",
    ],
  ],
  [
    'measured by test/scale/rank-scale.test.ts on the local stack: its sizes, its counts and its times on the machines named',
    [
      'with 5 keywords a site, over 1,000 sites in CI (25,011 requests, 60 s on 2 cores shared with other work; before SERPs were shared, 17,011 in 53 s)',
      '(25 a site since its SERPs are claimed in the shared cache: 5 claims',
      "18 since the run records its scope's `last_run`; 17 when measured below",
      'At 10,000 sites, seeded in 100 s, the schedule sent 100 plan messages, 10,000 rank messages (and 10,000 monitoring messages',
      'and 10,000 collect messages, made 10,000 posts of 50,000 tasks',
      '50,000 ledger lines and 50,000 rank rows, with 170,101 DynamoDB requests (17.0 a site: 2 GetItems, 4 Queries, 3 BatchGetItems, 5 claim PutItems, 3 BatchWriteItems; 3.4 a check at 5 keywords), in 503 s on 2 cores shared with other work (530 s with the counting)',
      'with 2,500 sites',
      'dies after 10 of its 25 plan messages',
      '1,099 rank messages for 1,000 sites',
      "the rerun sent 25 plans and 2,500 rank messages, posted only the 1,500 sites' checks the stopped one had not reached (1,500 collect messages, 38,761 requests, 87 s)",
      'the 12,500 checks (CI runs it over 500 sites: 5 plans, stopped after 2)',
      'Then 100 sites',
      '10 to a niche tracking the same 5 keywords',
      "50 tasks for the 500 checks (each SERP posted once, by 10 posts), 500 ledger lines of which 450 are `cached: true` at $0, every site's 5 rows",
      '(2,496 to 2,571 requests in three runs, about 25 a site',
      "Sharing costs each site 7 requests more at 5 keywords (25 against 18): on a loaded machine the 1,000 sites' schedule took 86 s of CPU against 75 s before",
    ],
  ],
  ['the days test/e2e/rank-tracking.test.ts runs', ['runs 30 days of a topic']],
];

describe('docs/architecture/queued-jobs.md', () => {
  it("states monitoring's plans, share of the cap and time limits as the code has them, and no other figure", () => {
    // "a second" and "an hour" below are these.
    expect([PLAN_WAIT_MS, SCHEDULE_EVENT_HOURS]).toEqual([1000, 1]);
    expectOnlyFigures(
      sectionText('Monitoring'),
      [
        `Daily at ${twoDigits(DAILY_SCHEDULE_UTC.hour)}:${twoDigits(DAILY_SCHEDULE_UTC.minute)} UTC`,
        `(after ${SCHEDULE_RETRIES} retries, or an hour)`,
        `one \`monitor-plan\` message per block of ${SITES_PER_PLAN} site ids`,
        `one BatchGetItem of the cap's ${DEPLOYMENT_SPEND_SHARDS} parts`,
        `the cap the schedule's work may take (${100 - DEFAULT_BUDGETS.scheduleReservePct}%)`,
        `fetches in bulk batches of ${BULK_TARGETS} domains`,
        `kept ${SHARED_KEEP_DAYS} days`,
        `(a read of the cache a second, ${PLAN_WAITS} times)`,
        `at ${SENDS_AT_ONCE} sends at a time, so it stops near ${(SCHEDULE_MINUTES * 60 * MESSAGES_A_SECOND * SITES_PER_PLAN) / 1e6} million sites in its ${SCHEDULE_MINUTES} minutes), a plan's is ${SITES_PER_PLAN} messages`,
        `the schedule's work grows by one message per ${SITES_PER_PLAN} sites`,
      ],
      listed(MONITORING_NOT_THE_CODE),
    );
  });

  it("states rank tracking's plans, batches, deliveries and time limits as the code has them, and no other figure", () => {
    const collect = QUEUES['rank-collect'];
    // A queue hides a message for six times its worker's time limit (the queue table's rule).
    const hidden = minutes(6 * collect.timeoutSeconds);
    const readsAMinute = collect.maxConcurrency * COLLECTS_AT_ONCE * READS_A_SECOND * 60;
    const left = DATAFORSEO_CALLS_A_MINUTE - readsAMinute;
    expectOnlyFigures(
      sectionText('Rank tracking'),
      [
        `the plan worker that reads a block of ${SITES_PER_PLAN} sites`,
        `Lambda's loop detection stops a chain at ${RECURSIVE_LOOP_LIMIT}`,
        `its visibility timeout (${hidden} minutes), up to ${collect.maxReceiveCount} times (about ${hidden * collect.maxReceiveCount} minutes past the first try)`,
        `${COLLECTS_AT_ONCE} at a time (\`task_get\`, free)`,
        `Posts are at most the rank worker's ${QUEUES.rank.maxConcurrency} at a time`,
        `Collection is at most ${collect.maxConcurrency} workers × ${COLLECTS_AT_ONCE} reads in flight`,
        `a site's run has ${QUEUES.rank.timeoutSeconds} s: ${CLAIMS_AT_ONCE} claims at a time`,
        `(${TASKS_PER_POST} tasks, ${TASKS_PER_POST / COLLECTS_AT_ONCE} rounds of reads in its ${collect.timeoutSeconds} s)`,
        `about ${readsAMinute} a minute, so the ${thousands(RANK_READS)} reads take about ${Math.round(RANK_READS / readsAMinute / 60)} hours, leaving about ${thousands(Math.round(left / 1000) * 1000)} a minute for monitoring's ${thousands(MONITORING_CALLS)} calls (about ${Math.round(MONITORING_CALLS / left / 60)} hours)`,
        `and a post per ${TASKS_PER_POST} checks`,
        `message per ${TASKS_PER_POST} of them, naming no task`,
        `and a plan's per ${SITES_PER_PLAN} sites`,
        `and ${TASKS_PER_POST} tasks a post`,
        `the route's ${ROUTE_TIMEOUT_MS / 1000} s`,
        `${TASKS_PER_POST} to a call (DataForSEO's most)`,
        `kept ${SHARED_KEEP_DAYS} days`,
        `(at most ${LIMITS.historyKeywordsMax} keywords)`,
        `A history reads at most ${LIMITS.historyKeywordsMax} keywords`,
        `Queries, ${HISTORY_QUERIES_AT_ONCE} at a time, and a reply`,
      ],
      listed(RANKS_NOT_THE_CODE),
    );
  });
});
