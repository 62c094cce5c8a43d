import type { App } from 'aws-cdk-lib';
import { checkedApp } from '../../infra/checks';

/**
 * The app the in-process tests synthesize: cdk-nag's checks as in `cdk synth` (a finding fails the
 * synth), given `context`. It leaves out what a test that reads templates does not need and that costs
 * seconds of CPU a synth: bundling (bundles.test.ts and node24.test.ts build the bundles, stack.test.ts's
 * CLI synth builds them as deployed); the stack trace of every construct and annotation, kept in the
 * cloud assembly's metadata, never in a template; and CDK's built-in CloudFormation validation, which
 * with `@aws-cdk/core:validateAgainstDefaultRules` off (cdk.json) can only warn: stack.test.ts's CLI
 * synth runs it and fails on what it reports.
 */
export const testApp = (context: Record<string, unknown> = {}): App =>
  checkedApp({
    context: {
      'aws:cdk:bundling-stacks': [],
      'aws:cdk:disable-creation-stack-traces': true,
      'aws:cdk:disable-stack-trace': true,
      ...context,
    },
    builtinCloudFormationValidation: false,
  });
