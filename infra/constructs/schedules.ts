import { Duration, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { PAGE_SCHEDULE_MINUTES, RESEARCH_SWEEP_MINUTES } from '@cm/contract';
import type { Alarms } from './alarms';
import type { FunctionFactory } from './function';
import { MESSAGE_RETENTION } from './queues';

/**
 * Where EventBridge puts a schedule's event it could not deliver to its function (throttled, refused,
 * out of retries or of age), with an alarm when one lands: otherwise a missed run leaves no trace.
 */
export function scheduleDeadLetters(scope: Construct, alarms: Alarms): Queue {
  const deadLetters = new Queue(scope, 'ScheduleDeadLetterQueue', {
    retentionPeriod: MESSAGE_RETENTION,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  Validations.of(deadLetters).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      "It is a dead-letter queue: the schedules' EventBridge targets' (their DeadLetterConfig), which cdk-nag does not count as one",
  });
  alarms.add(
    'ScheduleDeadLetterAlarm',
    'A schedule (monitoring, the research sweep or the page schedule) could not invoke its function: the event waits in the dead-letter queue',
    deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
  );
  return deadLetters;
}

/**
 * When the daily schedule runs, in UTC: a fixed time (a `rate(1 day)` runs at whatever time the rule was
 * made, and moves with a redeploy that replaces it), just after the UTC day begins, when the day's
 * budget windows and datum-days are new, so its hours of queued work end within the day it is paid in.
 */
export const DAILY_SCHEDULE_UTC = { hour: 0, minute: 10 } as const;

/** Daily, EventBridge runs the schedule function, which sends one plan message per block of sites (the plan worker queues each site's run). */
export function dailyMonitoring(scope: Construct, lambda: FunctionFactory, deadLetters: Queue): NodejsFunction {
  const fn = lambda('monitor-schedule', Duration.minutes(5));
  new Rule(scope, 'MonitorSchedule', {
    description: 'Daily backlink monitoring of every site and its active competitors',
    schedule: Schedule.cron({ hour: String(DAILY_SCHEDULE_UTC.hour), minute: String(DAILY_SCHEDULE_UTC.minute) }),
    // A day's run delivered within the hour is still that day's; a later one is missed, and says so.
    targets: [
      new LambdaFunction(fn, { retryAttempts: 2, maxEventAge: Duration.hours(1), deadLetterQueue: deadLetters }),
    ],
  });
  return fn;
}

/** Every minute, EventBridge runs the research sweep: jobs whose lease lapsed end `lease_expired`, and their places under the cap are freed. */
export function researchSweep(scope: Construct, lambda: FunctionFactory, deadLetters: Queue): NodejsFunction {
  const fn = lambda('research-sweep', Duration.minutes(1));
  new Rule(scope, 'ResearchSweep', {
    description: 'Ends research jobs whose lease lapsed and frees their places under the cap',
    schedule: Schedule.rate(Duration.minutes(RESEARCH_SWEEP_MINUTES)),
    // No retry, and no event older than the next sweep, which does the same work.
    targets: [
      new LambdaFunction(fn, {
        retryAttempts: 0,
        maxEventAge: Duration.minutes(RESEARCH_SWEEP_MINUTES),
        deadLetterQueue: deadLetters,
      }),
    ],
  });
  return fn;
}

/**
 * Every minute, EventBridge runs the page schedule: the pages' scheduled publishes and take-downs due are
 * applied (docs/api/publishing.md#pages-on-a-schedule). A missed run's work is the next run's: it sweeps
 * every minute since the last one finished.
 */
export function pageSchedule(scope: Construct, lambda: FunctionFactory, deadLetters: Queue): NodejsFunction {
  const fn = lambda('page-schedule', Duration.minutes(1));
  new Rule(scope, 'PageSchedule', {
    description: 'Publishes and takes down the pages whose scheduled time came',
    schedule: Schedule.rate(Duration.minutes(PAGE_SCHEDULE_MINUTES)),
    targets: [
      new LambdaFunction(fn, {
        retryAttempts: 0,
        maxEventAge: Duration.minutes(PAGE_SCHEDULE_MINUTES),
        deadLetterQueue: deadLetters,
      }),
    ],
  });
  return fn;
}
