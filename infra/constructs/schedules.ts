import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { RESEARCH_SWEEP_MINUTES } from '@cm/contract';
import type { FunctionFactory } from './function';

/** Daily, EventBridge runs the schedule function, which sends one plan message per block of sites (the plan worker queues each site's run). */
export function dailyMonitoring(scope: Construct, lambda: FunctionFactory): NodejsFunction {
  const fn = lambda('monitor-schedule', Duration.minutes(5));
  new Rule(scope, 'MonitorSchedule', {
    description: 'Daily backlink monitoring of every site and its active competitors',
    schedule: Schedule.rate(Duration.days(1)),
    targets: [new LambdaFunction(fn, { retryAttempts: 2 })],
  });
  return fn;
}

/** Every minute, EventBridge runs the research sweep: jobs whose lease lapsed end `lease_expired`, and their places under the cap are freed. */
export function researchSweep(scope: Construct, lambda: FunctionFactory): NodejsFunction {
  const fn = lambda('research-sweep', Duration.minutes(1));
  new Rule(scope, 'ResearchSweep', {
    description: 'Ends research jobs whose lease lapsed and frees their places under the cap',
    schedule: Schedule.rate(Duration.minutes(RESEARCH_SWEEP_MINUTES)),
    targets: [new LambdaFunction(fn, { retryAttempts: 0 })],
  });
  return fn;
}
