import { LIMITS } from '@cm/contract';
import type { FunctionId } from '../../infra/bundling';
import type { Day } from './day';
import { AWS_PRICES as P } from './prices';
import type { StackShape } from './template';

/*
 * A month's bill from a simulated day: what grows with the sites (requests, capacity, provider calls)
 * is the day's figure per site × sites × 30; what a deployment pays once (WAF's web ACLs and rules, the
 * alarms, the dashboard, the secrets) is added once. The provider bill is read from the sites' ledger,
 * so whatever the code shares between sites shows in it; a simulated day of whole niches (day.ts) has
 * the same share per site as any number of niches, which is why it scales by the number of sites.
 */

export const DAYS_A_MONTH = 30;
/** Bytes CloudWatch Logs ingests per invocation: Lambda's START, END and REPORT lines and a log line or two. */
const LOG_BYTES_PER_INVOCATION = 1024;
/** SQS requests per message: its send, its receive and its delete. */
const SQS_REQUESTS_PER_MESSAGE = 3;
const GB = 1024 ** 3;
/** How long a research job takes on AWS: the spec's 30 to 60 s, on average. */
const RESEARCH_JOB_SECONDS = (LIMITS.researchSecondsMin + LIMITS.researchSecondsMax) / 2;
/**
 * Where a research call answered with a job waits for it, and for how long: in `research` its wait
 * (wait_ms, 25 s by default), then in `jobs` the rest (get_job's wait, collecting it), and over MCP all
 * of it in `mcp` as well, which waits for the tool function it invoked. Counted as if every call came
 * over MCP and waited the whole job out: an upper bound of the Lambda seconds research waits.
 */
const RESEARCH_WAITS: readonly [FunctionId, number][] = [
  ['research', Math.min(LIMITS.waitMsMax / 1000, RESEARCH_JOB_SECONDS)],
  ['jobs', Math.max(0, RESEARCH_JOB_SECONDS - LIMITS.waitMsMax / 1000)],
  ['mcp', RESEARCH_JOB_SECONDS],
];

interface BillLine {
  /** `aws` or `provider`. */
  kind: 'aws' | 'provider';
  service: string;
  /** USD for the month at `sites` sites. */
  usd: number;
}

export interface Bill {
  sites: number;
  lines: BillLine[];
  awsUsd: number;
  providerUsd: number;
  totalUsd: number;
  perSiteUsd: number;
  /** Monitoring and rank tracking together, per site and month: the goal is at most $3. */
  monitoringAndRanksPerSiteUsd: number;
  /** What a research call cost on average (its providers' calls), per call asked. */
  researchPerCallUsd: number;
  /** What research cost per ledger line the providers were paid for (not answered from the shared cache). */
  researchPerPaidCallUsd: number;
  /** Lambda seconds research calls spend a day waiting for their jobs, at `sites` sites (RESEARCH_WAITS). */
  researchWaitSecondsADay: number;
}

const workerFunction = (name: string): FunctionId =>
  (name === 'monitor-schedule' ? name : `${name}-worker`) as FunctionId;

/** The month at `sites` sites of `day`'s workload on the stack `shape` describes. */
export function monthOf(day: Day, shape: StackShape, sites: number): Bill {
  const scale = (sites / day.sites) * DAYS_A_MONTH;
  const lines: BillLine[] = [];
  const aws = (service: string, usd: number) => lines.push({ kind: 'aws', service, usd });

  const invoked = [
    ...Object.entries(day.api).map(([fn, i]) => ({ fn: fn as FunctionId, ...i })),
    ...Object.entries(day.workers).map(([name, i]) => ({ fn: workerFunction(name), ...i })),
  ];
  let lambda = 0;
  let invocations = 0;
  for (const { fn, invocations: n, ms } of invoked) {
    const { memoryMb, arm } = shape.functions[fn];
    const gbSeconds = (ms / 1000) * (memoryMb / 1024);
    lambda += n * P.lambdaRequest.usd + gbSeconds * (arm ? P.lambdaArmGbSecond.usd : P.lambdaX86GbSecond.usd);
    invocations += n;
  }
  aws('Lambda', lambda * scale);
  // The wait the simulated calls (wait_ms 0) did not spend, as AWS bills it.
  let waiting = 0;
  for (const [fn, seconds] of RESEARCH_WAITS) {
    const { memoryMb, arm } = shape.functions[fn];
    waiting +=
      day.researchJobs * seconds * (memoryMb / 1024) * (arm ? P.lambdaArmGbSecond.usd : P.lambdaX86GbSecond.usd);
  }
  aws('Lambda: research calls waiting for their jobs', waiting * scale);

  const apiRequests = Object.values(day.api).reduce((sum, i) => sum + i.invocations, 0);
  aws('API Gateway (HTTP API)', apiRequests * P.httpApiRequest.usd * scale);
  aws('CloudFront', (apiRequests * P.cloudFrontRequest.usd + (day.pageBytes / GB) * P.cloudFrontGbOut.usd) * scale);
  aws(
    'WAF',
    apiRequests * P.wafRequest.usd * scale +
      shape.webAcls.reduce((sum, acl) => sum + P.wafWebAcl.usd + acl.rules * P.wafRule.usd, 0),
  );
  aws('SQS', day.sqsMessages * SQS_REQUESTS_PER_MESSAGE * P.sqsRequest.usd * scale);

  const { readUnits, writeUnits, indexWriteUnits } = day.capacity;
  aws(
    'DynamoDB requests (on-demand)',
    (readUnits * P.dynamoReadUnit.usd + (writeUnits + indexWriteUnits) * P.dynamoWriteUnit.usd) * scale,
  );
  // The table grows by what the day wrote (a write unit is a KB: an upper bound, overwrites counted as
  // growth); over the first month from empty its average size is half the month's growth.
  const monthGrowthGb = ((writeUnits * 1024) / GB) * scale;
  const averageGb = monthGrowthGb / 2;
  aws('DynamoDB storage', averageGb * P.dynamoStorageGbMonth.usd);
  if (shape.pitr) aws('DynamoDB point-in-time recovery', averageGb * P.dynamoPitrGbMonth.usd);
  // Each backup is a full copy of the table as it was when taken, kept to the month's end (35 days and
  // more): a backup on day d of the month holds d/30 of the month's growth for (30 - d)/30 of the month.
  const backupGbMonths = shape.backups.reduce((sum, rule) => {
    const days = Array.from({ length: rule.perMonth }, (_v, k) => ((k + 1) * DAYS_A_MONTH) / rule.perMonth);
    return sum + days.reduce((s, d) => s + monthGrowthGb * (d / DAYS_A_MONTH) * (1 - d / DAYS_A_MONTH), 0);
  }, 0);
  aws('AWS Backup', backupGbMonths * P.backupWarmGbMonth.usd);
  aws(
    'CloudWatch',
    ((invocations * LOG_BYTES_PER_INVOCATION) / GB) * P.logsIngestedGb.usd * scale +
      shape.alarmMetrics * P.alarm.usd +
      shape.dashboards * P.dashboard.usd +
      shape.customMetrics * P.customMetric.usd,
  );
  aws('Secrets Manager', shape.secrets * P.secret.usd);

  // A month of scheduled work is its first day's (trends and details: about one a month) and 29 more;
  // what else a site does is the same every day.
  for (const [tool, line] of Object.entries(day.ledger)) {
    const first = day.firstDay[tool]?.cost_usd ?? line.cost_usd;
    const month = first + line.cost_usd * (DAYS_A_MONTH - 1);
    lines.push({ kind: 'provider', service: tool, usd: (month * sites) / day.sites });
  }

  const sum = (kind: BillLine['kind']) => lines.filter((l) => l.kind === kind).reduce((s, l) => s + l.usd, 0);
  const awsUsd = sum('aws');
  const providerUsd = sum('provider');
  const perSite = (usd: number) => usd / sites;
  const toolUsd = (tool: string) => lines.find((l) => l.kind === 'provider' && l.service === tool)?.usd ?? 0;
  const researchCalls = day.sites * day.workload.research;
  const research = day.ledger.research;
  const paidResearch = research ? research.calls - research.cached_calls : 0;
  return {
    sites,
    lines,
    awsUsd,
    providerUsd,
    totalUsd: awsUsd + providerUsd,
    perSiteUsd: perSite(awsUsd + providerUsd),
    monitoringAndRanksPerSiteUsd: perSite(toolUsd('monitor') + toolUsd('rank_tracking')),
    researchPerCallUsd: researchCalls === 0 ? 0 : (research?.cost_usd ?? 0) / researchCalls,
    researchPerPaidCallUsd: paidResearch === 0 ? 0 : research!.cost_usd / paidResearch,
    researchWaitSecondsADay:
      (day.researchJobs * RESEARCH_WAITS.reduce((sum, [, seconds]) => sum + seconds, 0) * sites) / day.sites,
  };
}
