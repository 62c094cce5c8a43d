import { Template } from 'aws-cdk-lib/assertions';
import { FUNCTIONS, PAID_TOOLS, toolFunction, visibilityTimeoutSeconds, WORKERS } from '@cm/contract';
import { FUNCTION_ENTRIES } from '../../infra/bundling';
import { testApp } from './test-app';
import { ERROR_RATE, p99LatencyMs, stalledPeriods } from '../../infra/constructs/alarms';
import { DAILY_SCHEDULE_UTC } from '../../infra/constructs/schedules';
import { serviceStacks } from '../../infra/service-stacks';
import { pascal } from '../../infra/stack';
import { nestedTemplate } from './nested';
import { given } from '../helpers/client';

/*
 * Alarms that mean something at 10,000 sites (issue 50, point 5): a queue alarms when it stops draining,
 * not on the hours of backlog the daily plan queues by design; errors alarm as a rate with a minimum
 * count; each route group has a p99 latency alarm; the edge stack's topics are subscribed and output;
 * the daily schedule runs at a fixed UTC time. Both stacks as the app makes them, without bundling.
 */
const app = testApp({ alarmEmail: 'ops@example.com' });
const { edge, service } = serviceStacks(app, {});
const main = Template.fromStack(service);
// The alarms are in the service's nested stack (a stack of one template before).
// Its parameters read as the main stack's references.
const alarmStack = service.node.tryFindChild('Alarms') ? nestedTemplate(service, 'Alarms') : main;
const edgeStack = Template.fromStack(edge);

type Props = Record<string, any>;
const alarms = Object.entries(alarmStack.findResources('AWS::CloudWatch::Alarm')).map(
  ([id, a]) => [id, a.Properties as Props] as const,
);
const alarm = (prefix: string): Props => {
  const found = alarms.filter(([id]) => id.startsWith(prefix));
  if (found.length !== 1) throw new Error(`${found.length} alarms ${prefix}`);
  return given(found[0], 'the found[0]')[1];
};
/** The alarm's metric-math expression, and its metrics by id: `{ namespace, name, statistic, dimension }`. */
const mathOf = (a: Props) => {
  const expression = a.Metrics.find((m: Props) => m.Expression).Expression as string;
  const metrics = Object.fromEntries(
    a.Metrics.filter((m: Props) => m.MetricStat).map((m: Props) => [
      m.Id,
      {
        namespace: m.MetricStat.Metric.Namespace,
        name: m.MetricStat.Metric.MetricName,
        statistic: m.MetricStat.Stat,
        period: m.MetricStat.Period,
        dimension: JSON.stringify(m.MetricStat.Metric.Dimensions ?? []),
      },
    ]),
  );
  return { expression, metrics };
};
/** Whether a metric's dimensions name the main stack's resource `logicalPrefix` (its id and hash). */
const namesResource = (dimension: string, logicalPrefix: string) =>
  new RegExp(`"${logicalPrefix}[0-9A-F]{8}"`).test(dimension);

describe('queues', () => {
  it("alarms on a worker queue that stops draining (messages waiting, none deleted), not on its age or depth: the daily plan's backlog of hours drains", () => {
    const queueAlarms = alarms.filter(([, a]) =>
      /ApproximateAgeOfOldestMessage|ApproximateNumberOfMessagesVisible/.test(JSON.stringify(a)),
    );
    for (const worker of WORKERS) {
      const a = alarm(`${pascal(worker)}QueueStalledAlarm`);
      const { expression, metrics } = mathOf(a);
      expect(expression).toBe('IF(FILL(waiting, 0) > 0 AND FILL(deleted, 0) == 0, 1, 0)');
      expect(metrics.waiting).toMatchObject({
        name: 'ApproximateNumberOfMessagesVisible',
        statistic: 'Minimum',
        period: 300,
      });
      expect(metrics.deleted).toMatchObject({ name: 'NumberOfMessagesDeleted', statistic: 'Sum', period: 300 });
      expect(namesResource(given(metrics.waiting, 'the waiting').dimension, `${pascal(worker)}Queue`)).toBe(true);
      expect(namesResource(given(metrics.deleted, 'the deleted').dimension, `${pascal(worker)}Queue`)).toBe(true);
      // Every period of the window stalled, and the window outlasts a failed delivery's return.
      expect(a).toMatchObject({
        Threshold: 1,
        EvaluationPeriods: stalledPeriods(worker),
        DatapointsToAlarm: stalledPeriods(worker),
      });
      expect(stalledPeriods(worker) * 300).toBeGreaterThan(visibilityTimeoutSeconds(worker) + 300);
    }
    // No alarm on a source queue's age or depth: only the dead-letter queues' depth (one dead letter is news).
    const sources = queueAlarms.filter(([id]) => !/DeadLetterAlarm/.test(id) && !/QueueStalledAlarm/.test(id));
    expect(sources.map(([id]) => id)).toEqual([]);
    expect(stalledPeriods('rank-collect')).toBe(4);
    expect(stalledPeriods('monitor')).toBe(5);
  });
});

describe('errors', () => {
  it('alarms on a function failing as a rate with a minimum count (5 errors and 1% of its calls in 5 minutes), not on one error; on one for the daily schedule', () => {
    expect(ERROR_RATE).toEqual({ share: 0.01, minErrors: 5 });
    for (const fn of FUNCTION_ENTRIES) {
      const a = alarm(`${pascal(fn)}ErrorAlarm`);
      const { expression, metrics } = mathOf(a);
      const min = fn === 'monitor-schedule' ? 1 : 5;
      expect(expression).toBe(`IF(FILL(errors, 0) >= ${min} AND FILL(errors, 0) >= 0.01 * FILL(calls, 0), 1, 0)`);
      expect(metrics.errors).toMatchObject({ namespace: 'AWS/Lambda', name: 'Errors', statistic: 'Sum', period: 300 });
      expect(metrics.calls).toMatchObject({
        namespace: 'AWS/Lambda',
        name: 'Invocations',
        statistic: 'Sum',
        period: 300,
      });
      expect(namesResource(given(metrics.errors, 'the errors').dimension, `${pascal(fn)}Function`)).toBe(true);
      expect(a).toMatchObject(
        fn === 'monitor-schedule'
          ? { Threshold: 1, EvaluationPeriods: 1, DatapointsToAlarm: 1 }
          : { Threshold: 1, EvaluationPeriods: 3, DatapointsToAlarm: 2 },
      );
    }
  });

  it("alarms on the API's 5xx answers as a rate of its requests with a minimum count", () => {
    const a = alarm('ApiServerErrorAlarm');
    const { expression, metrics } = mathOf(a);
    expect(expression).toBe('IF(FILL(errors, 0) >= 5 AND FILL(errors, 0) >= 0.01 * FILL(calls, 0), 1, 0)');
    expect(metrics.errors).toMatchObject({ namespace: 'AWS/ApiGateway', name: '5xx', statistic: 'Sum' });
    expect(metrics.calls).toMatchObject({ namespace: 'AWS/ApiGateway', name: 'Count', statistic: 'Sum' });
    expect(a).toMatchObject({ Threshold: 1, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
  });
});

describe('latency', () => {
  it("alarms per route group (each function of the route table) on its p99 over the group's own figure, as a warning", () => {
    for (const fn of FUNCTIONS) {
      const a = alarm(`${pascal(fn)}LatencyAlarm`);
      expect(a).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Duration',
        ExtendedStatistic: 'p99',
        Period: 300,
        Threshold: p99LatencyMs(fn),
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
      });
      expect(a.AlarmDescription).toMatch(/^\[warning\] /);
      expect(namesResource(JSON.stringify(a.Dimensions), `${pascal(fn)}Function`)).toBe(true);
    }
    // Table routes at 1 s; a paid tool at DataForSEO's 20 s; research and mcp 2 s past the 25 s wait.
    expect(p99LatencyMs('read')).toBe(1_000);
    expect(p99LatencyMs('publish')).toBe(1_000);
    for (const tool of PAID_TOOLS.filter((t) => t !== 'research'))
      expect(p99LatencyMs(toolFunction(tool))).toBe(20_000);
    expect(p99LatencyMs('research')).toBe(27_000);
    expect(p99LatencyMs('mcp')).toBe(27_000);
  });
});

describe('the edge stack', () => {
  it("subscribes its alarm topics as the service stack's are (-c alarmEmail) and outputs their ARNs", () => {
    for (const [template, stack] of [
      [edgeStack, edge],
      [main, service],
    ] as const) {
      const topics = Object.keys(template.findResources('AWS::SNS::Topic')).sort();
      expect(topics).toEqual([expect.stringMatching(/^AlarmTopic/), expect.stringMatching(/^WarningTopic/)]);
      for (const topic of topics)
        template.hasResourceProperties('AWS::SNS::Subscription', {
          Protocol: 'email',
          Endpoint: 'ops@example.com',
          TopicArn: { Ref: topic },
        });
      const outputs = template.toJSON().Outputs;
      expect(outputs.AlarmTopicArn.Value).toEqual({ Ref: topics[0] });
      expect(outputs.WarningTopicArn.Value).toEqual({ Ref: topics[1] });
      expect(stack.node.tryGetContext('alarmEmail')).toBe('ops@example.com');
    }
  });
});

describe('schedules', () => {
  it('runs the daily schedule at a fixed UTC time (cron), not rate(1 day) from whenever the rule was made', () => {
    const rules = Object.values(main.findResources('AWS::Events::Rule')).map((r) => r.Properties.ScheduleExpression);
    expect(rules.filter((e: string) => /rate\(\d+ days?\)/.test(e))).toEqual([]);
    const daily = given(
      Object.values(main.findResources('AWS::Events::Rule')).find((r) =>
        JSON.stringify(r.Properties.Targets).includes('MonitorScheduleFunction'),
      ),
      'the find',
    );
    expect(daily.Properties.ScheduleExpression).toBe(
      `cron(${DAILY_SCHEDULE_UTC.minute} ${DAILY_SCHEDULE_UTC.hour} * * ? *)`,
    );
    expect(DAILY_SCHEDULE_UTC).toEqual({ hour: 0, minute: 10 });
  });
});
