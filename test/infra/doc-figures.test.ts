import { Template } from 'aws-cdk-lib/assertions';
import {
  BREAKER,
  DEFAULT_BUDGETS,
  LIMITS,
  METRICS,
  PAID_TOOLS,
  RELINK_BATCH_PAGES,
  TOOL_NAMES,
  toolFunction,
} from '@cm/contract';
import { DEFAULT_BEDROCK_MODEL, KEY_CACHE_MS, METRICS_NAMESPACE, WORKER_SETTLE_MS } from '@cm/runtime';
import { RECURSIVE_LOOP_LIMIT, ROUTE_TIMEOUT_MS } from '@cm/local';
import { SITES_PER_PLAN } from '@cm/tools';
import { AWS_PRICES } from '../../bench/bill/prices';
import { FUNCTION_ENTRIES, type FunctionId } from '../../infra/bundling';
import { testApp } from './test-app';
import { DEFAULT_DATAPOINTS, ERROR_RATE, ONE_DATAPOINT, p99LatencyMs } from '../../infra/constructs/alarms';
import {
  RESEARCH_CALL_SECONDS,
  RESEARCH_LOAD,
  RESERVED_CONCURRENCY,
  RESERVED_TOTAL,
} from '../../infra/constructs/concurrency';
import { logGroupName } from '../../infra/constructs/function';
import { DAILY_SCHEDULE_UTC } from '../../infra/constructs/schedules';
import { BACKUPS } from '../../infra/constructs/storage';
import { ONE_VCPU_MB, memoryOf } from '../../infra/memory';
import { serviceStacks } from '../../infra/service-stacks';
import { pascal } from '../../infra/stack';
import { expectOnlyFigures, prose, section, thousands } from './doc-text';
import { nestedTemplate } from './nested';

/*
 * The figures the runbook, the AWS stack's page and performance.md's memory give of the deployment are the
 * code's. Each claim below is a phrase made from the code's constants or the synthesized templates, and
 * each page states it; and a page (or section) states no other figure, unless it is listed as one the code
 * does not make (an AWS quota or price, a provider's, history), with why. A figure added to them, or a
 * setting changed in the code and not in them, fails here.
 */
const app = testApp();
const { service, edge } = serviceStacks(app, {});
type Resource = { Type: string; Properties: Record<string, any> };
const resources = (template: Template) => Object.entries(template.toJSON().Resources as Record<string, Resource>);
const main = Template.fromStack(service);
const alarms = nestedTemplate(service, 'Alarms');
const logs = nestedTemplate(service, 'Logs');
const integrations = nestedTemplate(service, 'Integrations');
const edgeTemplate = Template.fromStack(edge);

/** The one resource of `template` whose logical id starts with `id` (its hash apart). */
const resource = (template: Template, id: string): Record<string, any> => {
  const found = resources(template).filter(([rid]) => rid.replace(/[0-9A-F]{8}$/, '') === id);
  if (found.length !== 1) throw new Error(`${found.length} resources ${id}`);
  return found[0]![1].Properties;
};
const alarm = (id: string) => resource(alarms, id);
/** Every value of `key` the resources of `type` have, once each. */
const valuesOf = <T>(template: Template, type: string, key: (p: Record<string, any>) => T): T[] => [
  ...new Set(resources(template).flatMap(([, r]) => (r.Type === type ? [key(r.Properties)] : []))),
];
const fn = (name: string) => resource(main, `${pascal(name)}Function`);
const queue = (worker: string) => resource(main, `${pascal(worker)}Queue`);

const minutes = (seconds: number) => seconds / 60;
const days = (seconds: number) => seconds / 86_400;
const percent = (share: number) => share * 100;
const ROUTE_TIMEOUT = fn('publish').Timeout as number;
const RETENTION_DAYS = valuesOf(main, 'AWS::SQS::Queue', (p) => days(p.MessageRetentionPeriod as number));
const [LOG_RETENTION_DAYS] = valuesOf(logs, 'AWS::Logs::LogGroup', (p) => p.RetentionInDays as number);
const monitorRule = resource(main, 'MonitorSchedule').Targets[0].RetryPolicy;
const sweepRule = resource(main, 'ResearchSweep').Targets[0].RetryPolicy;
const wafBlocked = valuesOf(edgeTemplate, 'AWS::CloudWatch::Alarm', (p) => p.Threshold as number);
const stalledMinutes = (worker: string) =>
  alarm(`${pascal(worker)}QueueStalledAlarm`).EvaluationPeriods * minutes(ERROR_PERIOD);
/** The period an error rate is counted over: the error alarms' metrics'. */
const ERROR_PERIOD = alarm('PublishErrorAlarm').Metrics.find((m: any) => m.MetricStat).MetricStat.Period as number;
const capped = (reserved: number) => `${Math.ceil(reserved * 0.8)} of ${reserved}`;
const RESEARCH_RESERVED = RESERVED_CONCURRENCY[toolFunction('research')]!;
const PAID_RESERVED = RESERVED_CONCURRENCY[toolFunction('get_keywords')]!;
const MCP_RESERVED = RESERVED_CONCURRENCY.mcp!;
const QUOTA = RESERVED_TOTAL + 100; // Lambda keeps 100 of the account's quota unreserved.
const severity = (p: Record<string, any>) => /^\[(\w+)\]/.exec(p.AlarmDescription)![1];

/** The worker queues, as the template names them: each queue that has a dead-letter queue of its own. */
const WORKER_QUEUES = resources(main)
  .filter(([, r]) => r.Type === 'AWS::SQS::Queue' && r.Properties.RedrivePolicy)
  .map(([id]) => id.replace(/Queue[0-9A-F]{8}$/, ''));
/** A worker's settings as the template has them: its event source's, its queue's and its function's. */
const workerSettings = (worker: string) => {
  const [, source] = resources(main).find(
    ([id, r]) => r.Type === 'AWS::Lambda::EventSourceMapping' && id.startsWith(`${pascal(worker)}WorkerFunctionSqs`),
  )!;
  return {
    batchSize: source.Properties.BatchSize as number,
    maxReceiveCount: queue(worker).RedrivePolicy.maxReceiveCount as number,
    timeoutSeconds: fn(`${worker}-worker`).Timeout as number,
    maxConcurrency: source.Properties.ScalingConfig.MaximumConcurrency as number,
    visibilityTimeout: queue(worker).VisibilityTimeout as number,
  };
};

describe('the settings the pages rest on, as the templates have them', () => {
  it('one retention for every queue, one for every log group, one WAF alarm threshold, one error period', () => {
    expect(RETENTION_DAYS).toEqual([14]);
    expect(typeof LOG_RETENTION_DAYS).toBe('number');
    expect(wafBlocked).toHaveLength(1);
    expect(ERROR_PERIOD).toBe(300);
    // Every route function has one time limit, and the paid tools one reservation.
    expect(new Set(TOOL_NAMES.map(toolFunction).map((name) => fn(name).Timeout))).toEqual(new Set([ROUTE_TIMEOUT]));
    const dataforseoTools = PAID_TOOLS.filter((tool) => tool !== 'research');
    expect(new Set(dataforseoTools.map((tool) => RESERVED_CONCURRENCY[toolFunction(tool)]))).toEqual(
      new Set([PAID_RESERVED]),
    );
    // Point-in-time recovery keeps AWS's 35 days (no period set), which the weekly copies span.
    expect(resource(main, 'Table').PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
  });
});

describe('docs/runbook.md', () => {
  const runbook = prose('runbook.md');

  it('states only figures the code makes', () => {
    const rankCollect = queue('rank-collect');
    const stalled = (worker: string) => stalledMinutes(worker);
    expectOnlyFigures(
      runbook,
      [
        // Alarms in general, the error rate, the route functions' time limit.
        `Most take ${DEFAULT_DATAPOINTS.datapointsToAlarm} of ${DEFAULT_DATAPOINTS.evaluationPeriods} datapoints`,
        `${ERROR_RATE.minErrors} times or more and on ${percent(ERROR_RATE.share)} % or more of its calls in ${minutes(ERROR_PERIOD)} minutes, in ${DEFAULT_DATAPOINTS.datapointsToAlarm} of ${DEFAULT_DATAPOINTS.evaluationPeriods} periods`,
        `(${ROUTE_TIMEOUT} s for routes)`,
        // Dead letters and stalled queues.
        `past the collect queue's ${rankCollect.RedrivePolicy.maxReceiveCount} deliveries (about ${minutes(rankCollect.RedrivePolicy.maxReceiveCount * rankCollect.VisibilityTimeout)} minutes)`,
        `every ${minutes(ERROR_PERIOD)}-minute period`,
        `(${stalled('rank-collect')} minutes for \`rank-collect\`, ${stalled('monitor')} for \`monitor\`, ${stalled('monitor-plan')} for \`monitor-plan\``,
        `the messages are kept ${RETENTION_DAYS[0]} days`,
        `Messages are kept ${RETENTION_DAYS[0]} days`,
        `delivered ${queue('monitor').RedrivePolicy.maxReceiveCount} times (\`maxReceiveCount\`)`,
        // The schedules.
        `(after ${monitorRule.MaximumRetryAttempts} retries, or within an hour)`,
        // The API's errors and the latency alarms.
        `answered 5xx to ${ERROR_RATE.minErrors} requests or more and ${percent(ERROR_RATE.share)} % or more of them in ${minutes(ERROR_PERIOD)} minutes, in ${DEFAULT_DATAPOINTS.datapointsToAlarm} of ${DEFAULT_DATAPOINTS.evaluationPeriods} periods`,
        `in ${DEFAULT_DATAPOINTS.datapointsToAlarm} of ${DEFAULT_DATAPOINTS.evaluationPeriods} five-minute periods`,
        `${p99LatencyMs('publish') / 1000} s for routes that only read and write the table, ${p99LatencyMs(toolFunction('get_keywords')) / 1000} s for a tool that calls DataForSEO`,
        `${p99LatencyMs('research') / 1000} s for \`research\` and \`mcp\` (${(p99LatencyMs('mcp') - LIMITS.waitMsMax) / 1000} s past the ${LIMITS.waitMsMax / 1000} s a call may wait for its job`,
        // Budgets and the schedule's share of the daily cap.
        `reached ${alarm('BudgetUsed80Alarm').Threshold} % or ${alarm('BudgetUsed100Alarm').Threshold} % of its daily or monthly limit`,
        `at ${alarm('BudgetUsed100Alarm').Threshold} % the site's paid calls`,
        `(${100 - DEFAULT_BUDGETS.scheduleReservePct}%; the rest is kept for the sites' own calls)`,
        // Concurrency.
        `at 80 % of its reservation (${capped(PAID_RESERVED)}; ${capped(RESEARCH_RESERVED)} for \`research\`; ${capped(MCP_RESERVED)} for \`mcp\`)`,
        `the stack reserves ${RESERVED_TOTAL} and Lambda keeps 100 unreserved, so it needs ${QUOTA} or more`,
        // WAF.
        `WAF blocked ${wafBlocked[0]} requests in a minute`,
        // Restoring the table.
        `any second of the last ${BACKUPS.weekly.keptDays} days`,
        `one a week kept ${BACKUPS.weekly.keptDays} days and one a month kept ${BACKUPS.monthly.keptDays} days, at 05:00 UTC`,
        `(a daily copy kept ${BACKUPS.weekly.keptDays} days, beside ${BACKUPS.monthly.copies} monthly ones, was ${BACKUPS.weekly.keptDays + BACKUPS.monthly.copies} copies: about ${BACKUPS.weekly.keptDays} times the table`,
        `PITR covers every second of ${BACKUPS.weekly.keptDays} days`,
        `past its own ${BACKUPS.weekly.keptDays} days`,
        `${BACKUPS.weekly.copies + BACKUPS.monthly.copies} copies of the table at most`,
        `Restore from PITR within ${BACKUPS.weekly.keptDays} days`,
        // Keys, providers, secrets.
        `refuse a revoked key within ${KEY_CACHE_MS / 1000} s, and the OAuth access tokens signed in with it within ${(2 * KEY_CACHE_MS) / 1000} s`,
        `After ${BREAKER.failures} failures in a minute`,
        `after ${BREAKER.coolDownMs / 1000} s one call probes it`,
        `warm functions use it within ${minutes(LIMITS.secretMaxAgeSeconds)} minutes`,
      ],
      {
        '10,000 sites': "the scale the spec sets (a site's plan: docs/architecture/storage.md#capacity-at-10000-sites)",
        'keeps their results 30 days': "DataForSEO's, not ours",
        "(API Gateway's 30 s)": "API Gateway's integration limit",
        '5xx': 'the class of statuses',
        'rather than a 500': 'a status the service does not answer',
        'Claude Haiku 4.5': 'the model DEFAULT_BEDROCK_MODEL names: checked below',
        'steps 2 to 4 below': "the runbook's own steps",
        p99: "a statistic's name",
        'SHA-256': "a hash's name",
        'a route answers 503': "an HTTP status (the statuses are the contract's: docs/api/conventions.md#errors)",
        'us-east-1': "the edge stack's region",
      },
    );
    // The claims stand on the templates: each figure is the one resource of its kind, or every one's.
    expect(monitorRule.MaximumEventAgeInSeconds).toBe(3600);
    expect(sweepRule).toEqual({ MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 0 });
    expect(alarm('MonitorScheduleErrorAlarm')).toMatchObject({ Threshold: 1, EvaluationPeriods: 1 });
    expect(BREAKER.windowMs).toBe(60_000);
    expect(DEFAULT_BEDROCK_MODEL).toMatch(/claude-haiku-4-5/);
    for (const reserved of Object.values(RESERVED_CONCURRENCY))
      expect(
        alarms.findResources('AWS::CloudWatch::Alarm', { Properties: { Threshold: Math.ceil(reserved * 0.8) } }),
      ).not.toEqual({});
  });

  it('names only outputs, metrics, alarms, queues, functions and log groups the stacks have', () => {
    // The outputs of each stack it lists.
    const outputs = (template: Template) => Object.keys(template.toJSON().Outputs ?? {});
    for (const output of ['ApiUrl', 'PublicBaseUrl', 'McpStreamUrl', 'TableName', 'AlarmTopicArn', 'WarningTopicArn'])
      expect(outputs(main)).toContain(output);
    expect(outputs(edgeTemplate)).toEqual(expect.arrayContaining(['AlarmTopicArn', 'WarningTopicArn']));
    expect([service.stackName, edge.stackName]).toEqual(['ContentApi', 'ContentApiEdge']);
    expect(runbook).toContain(`the \`${METRICS_NAMESPACE}\` namespace`);
    // Every metric in backquotes of snake_case is one of the service's.
    const metrics = [...runbook.matchAll(/`([a-z]+(?:_[a-z]+)+)`/g)].map((m) => m[1]!);
    const notMetrics = [
      'api_request_id',
      'site_id',
      'function_request_id',
      'cold_start',
      'message_id',
      'warning_webhook_url',
      'budget_exceeded',
      'service_unavailable',
      'provider_unavailable',
      'edge_required',
    ];
    expect(metrics.filter((m) => !notMetrics.includes(m) && !(m in METRICS))).toEqual([]);
    // Every alarm it names is made: by a function, by a queue, or once.
    const made = [...resources(alarms), ...resources(edgeTemplate)]
      .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm')
      .map(([id]) => id.replace(/[0-9A-F]{8}$/, ''));
    // (`<Function>ErrorAlarm` stands for every function's, and `ErrorAlarm` for the one just named.)
    const named = [...new Set([...runbook.matchAll(/`(<\w+>)?\w*Alarm`/g)].map((m) => m[0].slice(1, -1)))];
    const pattern = (name: string) => new RegExp(`${name.replace(/<\w+>/, '\\w+')}$`);
    expect(named.filter((name) => !made.some((id) => pattern(name).test(id)))).toEqual([]);
    expect(named.length).toBeGreaterThan(15);
    // Warnings, as it lists them; every other alarm is critical.
    const warnings = [...resources(alarms), ...resources(edgeTemplate)]
      .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm' && severity(r.Properties) === 'warning')
      .map(([id]) =>
        id
          .replace(/[0-9A-F]{8}$/, '')
          .replace(/^(Api|McpStream)RateLimitsBlocked/, 'Waf')
          .replace(/^\w+?(Concurrency|Latency)Alarm$/, '$1')
          .replace(/^BudgetUsed\d+Alarm$/, 'Budget'),
      );
    expect(new Set(warnings)).toEqual(
      new Set(['Budget', 'ScheduleStoppedAlarm', 'Concurrency', 'Latency', 'ProviderBreakerOpenAlarm', 'WafAlarm']),
    );
    expect(runbook).toContain(
      'Warnings: the budget alarms, `ScheduleStoppedAlarm`, the concurrency alarms, the latency alarms, `ProviderBreakerOpenAlarm` and the WAF alarms; every other alarm is critical.',
    );
    // The worker queues, each with its dead-letter queue, and the schedules' one.
    const listed = /Each worker queue \(([^)]+)\) has a dead-letter queue/.exec(runbook)![1]!;
    expect(
      listed
        .match(/`[\w-]+`/g)!
        .map((q) => pascal(q.slice(1, -1)))
        .sort(),
    ).toEqual([...WORKER_QUEUES].sort());
    // Log groups, by the name the template gives them, and the functions named in them.
    expect(valuesOf(logs, 'AWS::Logs::LogGroup', (p) => p.LogGroupName as string).sort()).toEqual(
      FUNCTION_ENTRIES.map((name) => logGroupName(service.stackName, name)).sort(),
    );
    expect(runbook).toContain(`\`${logGroupName('<stack>', '<function>')}\``);
    expect(runbook).not.toMatch(/\/aws\/lambda\/<stack>-/);
    const groups = [...runbook.matchAll(/\/aws\/lambda\/ContentApi\/([\w-]+)/g)].map((m) => m[1]!);
    expect(groups.filter((name) => !(FUNCTION_ENTRIES as readonly string[]).includes(name))).toEqual([]);
  });
});

const count = (o: object | undefined) => Object.keys(o ?? {}).length;
const utc = `${String(DAILY_SCHEDULE_UTC.hour).padStart(2, '0')}:${String(DAILY_SCHEDULE_UTC.minute).padStart(2, '0')} UTC`;
const ONE_YEAR_DAYS = 365;
/** What each alarm reads: a metric, or each metric of its expression (a rate reads two). */
const alarmMetrics = [...resources(alarms), ...resources(edgeTemplate)]
  .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm')
  .reduce((sum, [, r]) => sum + (r.Properties.Metrics?.filter((m: any) => m.MetricStat).length ?? 1), 0);

describe('docs/architecture/aws-stack.md', () => {
  const page = prose('architecture/aws-stack.md');

  it('states only figures the code makes', () => {
    const logsTemplate = logs.toJSON();
    const alarmsTemplate = alarms.toJSON();
    const integrationsTemplate = integrations.toJSON();
    const [wafLogDays] = valuesOf(edgeTemplate, 'AWS::Logs::LogGroup', (p) => p.RetentionInDays as number);
    const [runtime] = valuesOf(main, 'AWS::Lambda::Function', (p) => p.Runtime as string);
    const [architecture] = valuesOf(main, 'AWS::Lambda::Function', (p) => (p.Architectures as string[]).join());
    const secretReaders = resources(main).filter(
      ([, r]) =>
        r.Type === 'AWS::Lambda::Function' && 'ORIGIN_VERIFY_SECRET_ARN' in (r.Properties.Environment?.Variables ?? {}),
    ).length;
    const secretReadsADay = 86_400 / LIMITS.secretMaxAgeSeconds;
    const weeklyAndMonthly = BACKUPS.weekly.copies + BACKUPS.monthly.copies;
    const dailyAndMonthly = BACKUPS.weekly.keptDays + BACKUPS.monthly.copies;
    expectOnlyFigures(
      page,
      [
        // The constructs' table.
        `weekly kept ${BACKUPS.weekly.keptDays} days, monthly kept a year`,
        `an alarm fires on ${DEFAULT_DATAPOINTS.datapointsToAlarm} of its ${DEFAULT_DATAPOINTS.evaluationPeriods} latest periods unless it says otherwise (the budget alarms and the daily schedule's errors: ${ONE_DATAPOINT.datapointsToAlarm};`,
        `both keep a message ${RETENTION_DAYS[0]} days, SQS's most`,
        `its own log group (${LOG_RETENTION_DAYS} days,`,
        `(Node.js ${/^nodejs(\d+)\.x$/.exec(runtime!)![1]}, ${architecture},`,
        'each capped function at 80% of its reservation',
        `kept ${wafLogDays} days), and an alarm on what it blocks`,
        `(cron, ${utc}) that runs \`monitor-schedule\` (${monitorRule.MaximumRetryAttempts} retries, events up to an hour old)`,
        `goes to their dead-letter queue (${RETENTION_DAYS[0]} days,`,
        // Functions: time limits and memory.
        `its handler checks the key) and ${minutes(fn('mcp-stream').Timeout)} minutes.`,
        `get ${ROUTE_TIMEOUT} s (API Gateway's integration limit is 30 s)`,
        `${memoryOf('publish')} MB where a caller waits, ${memoryOf('dashboard')} MB for the dashboard, the schedules and the small-message workers, one vCPU (${thousands(ONE_VCPU_MB)} MB) for the research worker`,
        `kept ${minutes(LIMITS.secretMaxAgeSeconds)} minutes) refuses a request`,
        // Alarms.
        `every ${minutes(ERROR_PERIOD)}-minute period`,
        `${ERROR_RATE.minErrors} errors and ${percent(ERROR_RATE.share)} % of the calls in ${minutes(ERROR_PERIOD)} minutes, ${DEFAULT_DATAPOINTS.datapointsToAlarm} of ${DEFAULT_DATAPOINTS.evaluationPeriods} periods`,
        `${p99LatencyMs('publish') / 1000} s for table routes, ${p99LatencyMs(toolFunction('get_keywords')) / 1000} s for the DataForSEO tools, ${p99LatencyMs('research') / 1000} s for \`research\` and \`mcp\``,
        `**The daily schedule at a fixed time**, ${utc}`,
        `($${AWS_PRICES.alarm.usd.toFixed(2)} a month): ${alarmMetrics} metrics (a rate alarm reads two), about $${Math.round(alarmMetrics * AWS_PRICES.alarm.usd)} a month`,
        `at under ${ERROR_RATE.minErrors} calls in ${minutes(ERROR_PERIOD)} minutes`,
        // Nested stacks and backups.
        `(${count(alarmsTemplate.Resources)} resources, ${count(alarmsTemplate.Parameters)} parameters naming the service's resources)`,
        `(${count(logsTemplate.Resources)}, and their names and ARNs as ${count(logsTemplate.Outputs)} outputs)`,
        `200 outputs stop at ${200 / (count(logsTemplate.Outputs) / count(logsTemplate.Resources))} functions`,
        `(one each per function, ${count(integrationsTemplate.Resources)}; the functions' ARNs and the API as ${count(integrationsTemplate.Parameters)} parameters, the integrations as ${count(integrationsTemplate.Outputs)} outputs the routes read)`,
        // A parameter a function, and the API's.
        `200 parameters at ${200 - (count(integrationsTemplate.Parameters) - count(integrationsTemplate.Outputs))}`,
        `keeps ${weeklyAndMonthly} full copies of the table at most (weekly for ${BACKUPS.weekly.keptDays} days, monthly for a year), not ${dailyAndMonthly} (daily for ${BACKUPS.weekly.keptDays} days and monthly): backup storage about ${weeklyAndMonthly} times the table instead of ${BACKUPS.weekly.keptDays} to ${dailyAndMonthly}, at $${AWS_PRICES.backupWarmGbMonth.usd.toFixed(2)} a GB-month`,
        // Secrets.
        `kept \`secretMaxAgeSeconds\`, ${minutes(LIMITS.secretMaxAgeSeconds)} minutes)`,
        `read by the ${secretReaders} functions that answer HTTP`,
        `per ${minutes(LIMITS.secretMaxAgeSeconds)} minutes, ${secretReadsADay} a day each ($0.05 per 10,000 requests: 1,000 warm containers are about $${Math.round(((1000 * secretReadsADay * 30) / 10_000) * 0.05)} a month)`,
        `reaches warm containers within ${minutes(LIMITS.secretMaxAgeSeconds)} minutes`,
      ],
      {
        // Names with digits.
        'us-east-1': 'a region',
        p99: "a statistic's name",
        '5xx': 'the class of statuses',
        'SHA-256': "a hash's name",
        'TLS 1.2': "the custom domain's policy (test/infra/resilience.test.ts checks TLSv1.2_2021)",
        // AWS's, not ours.
        "Secrets Manager's 10,000 a second": "Secrets Manager's quota",
        'CloudFormation takes 500 resources a template': "CloudFormation's limit",
        '10,000 sites': 'the scale the spec sets',
        'queues 10,000 monitoring and 10,000 rank messages': 'one of each a site, at the spec’s scale',
        "Before, one distribution's 100 aliases and one certificate's 10 (at most 100) names capped it near 100 sites.":
          "CloudFront's and ACM's quotas, and what they capped before tenants",
        'the first 10 free, then $0.10 a tenant a month, about $1,000 a month at 10,000 sites':
          'a third party’s reading of CloudFront’s price, flagged as such',
        'at most 4 control-plane calls (`--stop` 3)': 'the calls test/unit/domain-tenants.test.ts records',
        "At CloudFront's default of **10,000 distribution tenants an account**: the 10,000th site with a domain; the quota is raised through AWS Support (ask before ~8,000). ACM's 2,500 certificates at a time in us-east-1 (5,000 issued a year) bind first, at the 2,500th site with a domain":
          'CloudFront’s and ACM’s quotas (operations.md#quotas-of-the-sites-domains)',
        '250,000 requests a second and 150 Gbps by default': "CloudFront's quotas",
        // History: what the stack was before a change, as the change measured it.
        '(360 s on `rank-collect`, 720 s on `monitor`)': 'the alarms of before',
        '$7 more than before': 'what the change added',
        'The service stack had 447 (120 of them routes), and a tool cost it 9': 'the stack before the nested stacks',
        // Counted by test/infra/growth.test.ts from the template.
        '(6 before the integrations moved, at 377 resources)': 'the stack before the integrations moved',
        'a tool costs the service stack 4': 'growth.test.ts counts it',
        '346 of 500 leaves room for 38 more tools': 'growth.test.ts compares it with the template',
        'holds room for 20': "growth.test.ts's NEXT_TOOLS",
        // Measured, and said where.
        "four weekly copies hold 0.625 of a month's growth-months against the dailies' 4.99: its AWS Backup line at 10,000 sites, $87.68 with dailies, is about $11":
          "the bill's model (npm run bill), as performance.md's bill",
        'about 32 KB more to load': 'measured by the bundle report',
      },
    );
    // The figures the claims stand on.
    expect(BACKUPS.monthly.keptDays).toBe(ONE_YEAR_DAYS);
    expect(sweepRule).toEqual({ MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 0 });
    expect(memoryOf('research-worker')).toBe(ONE_VCPU_MB);
    for (const [, r] of resources(main).filter(([, r]) => r.Type === 'AWS::Lambda::Function'))
      expect([memoryOf('publish'), memoryOf('dashboard'), ONE_VCPU_MB]).toContain(r.Properties.MemorySize);
  });
});

describe('docs/performance.md#memory', () => {
  const memory = section('performance.md', 'Memory');

  it("gives each function's memory as infra/memory.ts and the template do, and no other figure of the code's", () => {
    // Each row: the functions it names (the API's routes are every route function), and their memory.
    const rows = [...memory.matchAll(/\| ([^|]+) \| [^|]+ \| [^|]+ \| ([\d,]+) MB \|/g)].map((m) => ({
      names: [
        ...(m[1]!.includes("the API's routes") ? TOOL_NAMES.map(toolFunction) : []),
        ...[...m[1]!.matchAll(/`([\w-]+)`/g)].map((n) => n[1]!),
      ],
      mb: Number(m[2]!.replace(',', '')),
    }));
    const listed = rows.flatMap((row) => row.names.map((name) => [name, row.mb] as const));
    for (const [name, mb] of listed) {
      expect({ name, mb }).toEqual({ name, mb: memoryOf(name as FunctionId) });
      expect({ name, mb }).toEqual({ name, mb: fn(name).MemorySize });
    }
    expectOnlyFigures(
      memory,
      [
        `(${thousands(ONE_VCPU_MB)} MB is one vCPU)`,
        ...rows.map((row) => `| ${thousands(row.mb)} MB |`),
        `a request body (${LIMITS.requestBodyBytes / 1024 / 1024} MB; a publish has its own limit)`,
        `up to ${RELINK_BATCH_PAGES} pages' bodies`,
        `a plan of ${SITES_PER_PLAN} sites`,
        `against the worker's ${fn('research-worker').Timeout} s`,
        `at ${memoryOf('publish')} MB it would near its memory`,
      ],
      {
        'Node 24 (2026-11-28, 7 runs each)': 'when the bench measured the figures below',
        '67-78 MB': 'measured',
        '57 MB': 'measured',
        '72-73 MB': 'measured',
        '72-76 MB': 'measured',
        '87 MB': 'measured',
        'its init is 45-135 ms of one core, about 3.5 times that at 512 MB and 7 times at 256': 'measured',
        '(0.6 times the minimal handler': 'measured',
        'over 170 MB left': 'the memory less the RSS measured',
        'peak RSS 301-350 MB, 2.3-15 s of one core': 'measured (bench/page-peak.ts)',
        'take 3.5 times as long': 'measured',
        'a reply under 6 MB': "Lambda's payload limit",
        'a post of 100 checks': "DataForSEO's most tasks a post takes",
        '(2 MB of markup)': "url mode's most markup read",
        '`mcp-stream`': 'a name',
      },
    );
  });
});

describe('docs/architecture/queued-jobs.md', () => {
  const page = prose('architecture/queued-jobs.md');

  it("gives each queue's settings as the template has them, and no other figure before its first section", () => {
    const rows = [...page.matchAll(/\| `([\w-]+)` \| (\d+) \| (\d+) \| (\d+) s \| (\d+) \|/g)];
    expect(rows.map((row) => pascal(row[1]!)).sort()).toEqual([...WORKER_QUEUES].sort());
    for (const [, worker, batchSize, attempts, timeout, concurrency] of rows) {
      const settings = workerSettings(worker!);
      expect({ worker, settings }).toEqual({
        worker,
        settings: {
          batchSize: Number(batchSize),
          maxReceiveCount: Number(attempts),
          timeoutSeconds: Number(timeout),
          maxConcurrency: Number(concurrency),
          visibilityTimeout: 6 * Number(timeout),
        },
      });
    }
    expectOnlyFigures(
      page.slice(0, page.indexOf(' ## ')),
      [
        ...rows.map((row) => row[0]),
        "a queue hides a message for six times its worker's time limit",
        `up to ${RETENTION_DAYS[0]} days (SQS's most;`,
        // Lambda's recursive loop detection, as the local queues emulate it.
        `more than ${RECURSIVE_LOOP_LIMIT} times in one chain: the ${RECURSIVE_LOOP_LIMIT + 1}th message`,
      ],
      {},
    );
    expect(page).toContain(
      'alarms when it stops draining: messages waited through every five-minute period and none was deleted, for its visibility timeout plus two periods',
    );
  });

  it('sizes the research waits as concurrency.ts does, and says where its costs come from', () => {
    const waits = section('architecture/queued-jobs.md', 'Research waits, and the Lambda they hold');
    const perSecond = (RESEARCH_LOAD.callsPerDay / 86_400) * RESEARCH_LOAD.peakFactor;
    const inFlight = Math.round(perSecond * RESEARCH_CALL_SECONDS);
    expectOnlyFigures(
      waits,
      [
        `up to \`wait_ms\` (${LIMITS.waitMsMax / 1000} s, the most and the default)`,
        `The design load is ${thousands(RESEARCH_LOAD.callsPerDay)} research calls a day`,
        `${RESEARCH_LOAD.peakFactor}× the average at the peak: ${perSecond.toFixed(2)} calls a second`,
        `Each holds its function up to ${RESEARCH_CALL_SECONDS} s (its wait and a second of its own)`,
        `${inFlight} calls are in flight at the peak`,
        `with ${PAID_RESERVED} reserved executions ${(PAID_RESERVED / RESEARCH_CALL_SECONDS).toFixed(1)} calls a second were served`,
        `\`research\` ${RESEARCH_RESERVED} (${inFlight} under the 80% alarm, rounded up to 10) and \`mcp\` ${MCP_RESERVED} (research's ${RESEARCH_RESERVED} and two other tools' ${PAID_RESERVED})`,
        `computes the same ${inFlight} from the figures`,
        `The stack reserves ${RESERVED_TOTAL} executions in all, so the account needs a quota of ${QUOTA}`,
        `with \`wait_ms\` ${LIMITS.waitMsMax}`,
        `at ${memoryOf('research')} MB each`,
        `the reservation is sized for ${thousands(RESEARCH_LOAD.callsPerDay)} calls a day at a ${RESEARCH_LOAD.peakFactor}× peak`,
        `The spec's cap of ${LIMITS.concurrentResearch} jobs in flight`,
      ],
      {
        '(10,000 sites asking 5)': "the spec's scale, the bill's workload",
        'At 10,000 sites with research shared': "the spec's scale",
        'The spec\'s "30 to 60 seconds per call"': "the spec's words",
        "a job's whole 45 s (the spec's 30 to 60 s) in the waiting function (25 s `research`, 20 s `jobs`)":
          "the bill's model of a job (npm run bill)",
        '90 Lambda seconds (45 GB-seconds) and $0.0006 a job': "the bill's model",
        'about 10,000 jobs a day of the 50,000 calls': "the bill's model",
        "900,000 Lambda seconds a day, about $180 a month, against $6,360 of research's providers: 2.8%":
          "the bill's model (npm run bill prints both)",
      },
    );
    expect(memoryOf('jobs')).toBe(memoryOf('research'));
    expect(memoryOf('mcp')).toBe(memoryOf('research'));
  });
});

describe('docs/architecture/budgets.md', () => {
  it("gives a worker's settle margin and time limits as the code has them", () => {
    expect(prose('architecture/budgets.md')).toContain(
      `A worker gives up the last ${WORKER_SETTLE_MS / 1000} s of its timeout (${workerSettings('research').timeoutSeconds} s for research, ${workerSettings('monitor').timeoutSeconds} s for monitoring and ranks)`,
    );
    expect(workerSettings('rank').timeoutSeconds).toBe(workerSettings('monitor').timeoutSeconds);
  });
});

describe('docs/architecture/local-stack.md', () => {
  it("gives the local stack's route time limit and chain limit as the code has them, the same as on AWS", () => {
    const page = prose('architecture/local-stack.md');
    expect(ROUTE_TIMEOUT_MS / 1000).toBe(ROUTE_TIMEOUT);
    expect(page).toContain(`invokes the same handler modules with a Lambda context of ${ROUTE_TIMEOUT_MS / 1000} s`);
    expect(page).toContain(
      `a delivery that would invoke the same worker a ${RECURSIVE_LOOP_LIMIT + 1}th time in one chain`,
    );
  });
});
