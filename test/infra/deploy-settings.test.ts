import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { CURRENT_VERSION_EXPIRED_FLAGS, FLAGS } from 'aws-cdk-lib/cx-api';
import { DEFAULT_BUDGETS } from '@cm/contract';
import { testApp } from './test-app';
import { serviceStacks } from '../../infra/service-stacks';
import { ContentApiStack } from '../../infra/stack';
import { given } from '../helpers/client';

/*
 * What a deploy to a fresh account or another region takes from the stack's environment and context:
 * the Bedrock profile of its region, the key of customer-encrypted secrets, termination protection.
 * In process with cdk-nag, no bundling.
 */
const MODEL = 'anthropic.claude-haiku-4-5-20251001-v1:0';
const KEY = 'arn:aws:kms:eu-west-1:123456789012:key/0f3c1a2b-4d5e-6f70-8192-a3b4c5d6e7f8';

const SECRETS = { dataforseoSecret: 'content-api/dataforseo', tavilySecret: 'content-api/tavily' };

/*
 * Each configuration is synthesized once, by the first test that reads it. Template.fromStack's synth runs
 * cdk-nag, whose finding throws there: a test that reads a template has passed cdk-nag.
 */
const once = <T>(make: () => T) => {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
};
/** The stack as a sandbox deploy makes it: no region, no provider secrets. */
const plainStack = once(() => new ContentApiStack(testApp(), 'Plain'));
/** The stack with both providers' secrets, under Secrets Manager's own key. */
const withSecrets = once(() => Template.fromStack(new ContentApiStack(testApp(), 'Secrets', SECRETS)));

/** Every IAM statement of the template's policies, with the roles it is attached to. */
const statementsOf = (t: Template) =>
  Object.values(t.findResources('AWS::IAM::Policy')).flatMap((p) =>
    p.Properties.PolicyDocument.Statement.map((statement: any) => ({
      roles: JSON.stringify(p.Properties.Roles),
      statement,
    })),
  );
const researchWorkerModel = (t: Template) =>
  given(
    Object.values(t.findResources('AWS::Lambda::Function')).find((f) =>
      JSON.stringify(f.Properties.Role).includes('ResearchWorkerFunction'),
    ),
    'the find',
  ).Properties.Environment.Variables.BEDROCK_MODEL_ID;

describe('the Bedrock model of the stack’s region', () => {
  it("uses the default model's EU profile in an EU region, and grants that profile and its model, passing cdk-nag", () => {
    const t = Template.fromStack(new ContentApiStack(testApp(), 'Eu', { env: { region: 'eu-west-1' } }));
    expect(researchWorkerModel(t)).toBe(`eu.${MODEL}`);
    const bedrock = statementsOf(t).filter(({ statement }) => statement.Action === 'bedrock:InvokeModel');
    expect(bedrock).toHaveLength(1);
    expect(given(bedrock[0], 'the bedrock[0]').roles).toContain('ResearchWorkerFunction');
    const resources = JSON.stringify(given(bedrock[0], 'the bedrock[0]').statement.Resource);
    expect(resources).toContain(`:bedrock:eu-west-1:",{"Ref":"AWS::AccountId"},":inference-profile/eu.${MODEL}`);
    expect(resources).toContain(`:bedrock:*::foundation-model/${MODEL}`);
    expect(resources).not.toContain(`us.${MODEL}`);
  });

  it('uses the APAC profile in an Asia Pacific region, and the one given whatever the region', () => {
    const apac = new ContentApiStack(testApp(), 'Apac', {
      env: { region: 'ap-southeast-1' },
    });
    expect(researchWorkerModel(Template.fromStack(apac))).toBe(`apac.${MODEL}`);
    const given = new ContentApiStack(testApp(), 'Given', {
      env: { region: 'sa-east-1' },
      bedrockModelId: `global.${MODEL}`,
    });
    expect(researchWorkerModel(Template.fromStack(given))).toBe(`global.${MODEL}`);
  });

  it('stops the synth in a region no geography profile serves, naming the context that chooses a model', () => {
    const app = testApp();
    expect(() => new ContentApiStack(app, 'SaoPaulo', { env: { region: 'sa-east-1' } })).toThrow('-c bedrockModelId=');
  });

  it('keeps the US profile with no region at synth, and warns that it did', () => {
    expect(researchWorkerModel(Template.fromStack(plainStack()))).toBe(`us.${MODEL}`);
    Annotations.fromStack(plainStack()).hasWarning('/Plain', Match.stringLikeRegexp('-c bedrockModelId='));
  });
});

describe('provider secrets under a customer managed key', () => {
  it('lets exactly the functions that read a secret decrypt with the key, through Secrets Manager only, passing cdk-nag', () => {
    const t = Template.fromStack(new ContentApiStack(testApp(), 'Keyed', { ...SECRETS, secretsKmsKeyArn: KEY }));
    const statements = statementsOf(t);
    // The stack's own secrets (the OAuth secret) are under the account's default key: no grant of this one.
    const readers = statements.filter(
      ({ statement }) => statement.Action === 'secretsmanager:GetSecretValue' && !('Ref' in statement.Resource),
    );
    const decrypters = statements.filter(({ statement }) => JSON.stringify(statement.Action).includes('kms:'));
    // The nine that call a provider, and the monitoring plan, which buys the daily numbers in bulk.
    expect(readers).toHaveLength(10);
    expect(decrypters.map(({ roles }) => roles).sort()).toEqual(readers.map(({ roles }) => roles).sort());
    for (const { statement } of decrypters)
      expect(statement).toEqual({
        Action: 'kms:Decrypt',
        Effect: 'Allow',
        Resource: KEY,
        Condition: {
          StringEquals: {
            'kms:ViaService': { 'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
          },
        },
      });
  });

  it('grants no key without one, and refuses what is not a key ARN (an alias grants nothing)', () => {
    expect(JSON.stringify(statementsOf(withSecrets()))).not.toContain('kms:');
    const alias = 'arn:aws:kms:eu-west-1:123456789012:alias/content-api';
    expect(() => new ContentApiStack(testApp(), 'Aliased', { ...SECRETS, secretsKmsKeyArn: alias })).toThrow(
      "secretsKmsKeyArn must be a KMS key's ARN",
    );
  });
});

describe("the provider secrets' names", () => {
  it('describes each secret at deploy (its metadata, not its value), so a name that names none fails the deploy', () => {
    const t = withSecrets();
    const checks = Object.values(t.findResources('Custom::AWS')).map((r) => JSON.stringify(r.Properties.Create));
    expect(checks.sort()).toEqual([
      expect.stringContaining('\\"SecretId\\":\\"content-api/dataforseo\\"'),
      expect.stringContaining('\\"SecretId\\":\\"content-api/tavily\\"'),
    ]);
    for (const check of checks) expect(check).toContain('\\"action\\":\\"describeSecret\\"');
    // Its function may describe those two secrets and do nothing else.
    const described = statementsOf(t).filter(({ statement }) => statement.Action === 'secretsmanager:DescribeSecret');
    expect(described).toHaveLength(2);
    for (const { roles } of described) expect(roles).toContain('AWS679f53fac002430cb0da5b7982bd2287');
    expect(
      JSON.stringify(
        statementsOf(t)
          .filter(({ roles }) => roles.includes('AWS679f53fac002430cb0da5b7982bd2287'))
          .map(({ statement }) => statement.Action),
      ),
    ).toBe('["secretsmanager:DescribeSecret","secretsmanager:DescribeSecret"]');
  });

  it('checks nothing, and has no checking function, without provider secrets', () => {
    expect(Template.fromStack(plainStack()).findResources('Custom::AWS')).toEqual({});
  });

  it('stops the synth on what cannot name a secret, naming the context that gave it', () => {
    const stack = (props: Record<string, string>) => () => new ContentApiStack(testApp(), 'Named', props);
    expect(stack({ dataforseoSecret: 'content api/dataforseo' })).toThrow(
      'dataforseoSecret must be a Secrets Manager name',
    );
    expect(stack({ tavilySecret: 'x'.repeat(513) })).toThrow('tavilySecret must be a Secrets Manager name');
    expect(stack({ tavilySecret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:content-api/tavily' })).toThrow(
      "tavilySecret must be a secret's name or its complete ARN",
    );
    expect(
      stack({ tavilySecret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:content-api/tavily-AbC123' }),
    ).not.toThrow();
  });

  it('warns of a name that Secrets Manager may read as an ARN with its random suffix', () => {
    const stack = new ContentApiStack(testApp(), 'Suffixed', {
      dataforseoSecret: 'content-api/dataforseo-prod01',
    });
    Annotations.fromStack(stack).hasWarning(
      '/Suffixed',
      Match.stringLikeRegexp('dataforseoSecret .* give the complete ARN'),
    );
  });
});

describe('termination protection', () => {
  it('protects both stacks of the app from deletion by default', () => {
    const { edge, service } = serviceStacks(testApp(), {});
    expect(edge.terminationProtection).toBe(true);
    expect(service.terminationProtection).toBe(true);
  });

  it('leaves a throwaway app unprotected with -c terminationProtection=false', () => {
    const app = testApp({ terminationProtection: 'false' });
    const { edge, service } = serviceStacks(app, {});
    expect(edge.terminationProtection).toBe(false);
    expect(service.terminationProtection).toBe(false);
  });
});

describe('a table of its own choosing', () => {
  it('makes no table with -c existingTableName and points every function, grant and backup at the one named, passing cdk-nag', () => {
    const { service } = serviceStacks(testApp({ existingTableName: 'content-restored-2026-11-27' }), {
      region: 'eu-west-1',
    });
    const t = Template.fromStack(service);
    t.resourceCountIs('AWS::DynamoDB::Table', 0);
    const functions = Object.values(t.findResources('AWS::Lambda::Function'));
    const named = functions.filter(
      (f) => f.Properties.Environment?.Variables?.TABLE_NAME === 'content-restored-2026-11-27',
    );
    expect(named.length).toBeGreaterThan(20);
    expect(named).toHaveLength(functions.filter((f) => f.Properties.Environment?.Variables?.TABLE_NAME).length);
    const tableGrants = statementsOf(t).filter(({ statement }) =>
      JSON.stringify(statement.Action).includes('dynamodb:'),
    );
    expect(tableGrants.length).toBeGreaterThan(0);
    for (const { statement } of tableGrants)
      expect(JSON.stringify(statement.Resource)).toContain('table/content-restored-2026-11-27');
    t.hasResourceProperties('AWS::Backup::BackupSelection', {
      BackupSelection: Match.objectLike({
        Resources: [Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([':table/content-restored-2026-11-27'])] })],
      }),
    });
    t.hasOutput('TableName', { Value: 'content-restored-2026-11-27' });
  });
});

describe('the CDK feature flags', () => {
  it('pins every flag, each to the value the stacks were synthesized with before (no resource changes)', () => {
    const pinned: Record<string, unknown> = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'cdk.json'), 'utf8'),
    ).context;
    const flags = Object.keys(pinned).filter((key) => key in FLAGS);
    // Every flag this aws-cdk-lib takes is set, so an upgrade never changes one behind a deploy's back
    // (target-partitions is a list of partitions, not a behaviour).
    const configurable = Object.entries(FLAGS)
      .filter(([flag, info]) => info.introducedIn.v2 !== undefined && !CURRENT_VERSION_EXPIRED_FLAGS.includes(flag))
      .map(([flag]) => flag)
      .filter((flag) => flag !== '@aws-cdk/core:target-partitions');
    expect(configurable.filter((flag) => !flags.includes(flag))).toEqual([]);
    const templates = (context: Record<string, unknown>) => {
      const { edge, service } = serviceStacks(testApp(context), {
        region: 'eu-west-1',
        account: '123456789012',
      });
      return [Template.fromStack(edge).toJSON(), Template.fromStack(service).toJSON()];
    };
    const unpinned = Object.fromEntries(
      Object.entries(pinned).filter(
        ([key]) => !flags.includes(key) || key === '@aws-cdk/aws-lambda-nodejs:useLatestRuntimeVersion',
      ),
    );
    expect(templates(pinned)).toEqual(templates(unpinned));
  });
});

describe("the deployment's daily budget", () => {
  // The service's functions (CDK's own custom resources have no table).
  const capOf = (t: Template) =>
    new Set(
      Object.values(t.findResources('AWS::Lambda::Function'))
        .filter((f) => f.Properties.Environment?.Variables?.TABLE_NAME)
        .map((f) => f.Properties.Environment.Variables.GLOBAL_DAILY_BUDGET_USD),
    );
  const stackOf = (context: Record<string, unknown> = {}) =>
    serviceStacks(testApp(context), { region: 'eu-west-1' }).service;

  it('is the documented default when -c globalDailyBudgetUsd is not given, and the synth says so', () => {
    const service = stackOf();
    const t = Template.fromStack(service);
    expect(capOf(t)).toEqual(new Set([String(DEFAULT_BUDGETS.globalDailyUsd)]));
    t.hasOutput('GlobalDailyBudgetUsd', { Value: String(DEFAULT_BUDGETS.globalDailyUsd) });
    Annotations.fromStack(service).hasInfo(
      '*',
      Match.stringLikeRegexp(`No -c globalDailyBudgetUsd: .* at most \\$${DEFAULT_BUDGETS.globalDailyUsd} a day`),
    );
  });

  it('is the one given, silently; none is no cap, with a warning; anything else stops the synth', () => {
    const given = stackOf({ globalDailyBudgetUsd: '250' });
    expect(capOf(Template.fromStack(given))).toEqual(new Set(['250']));
    expect(Annotations.fromStack(given).findInfo('*', Match.stringLikeRegexp('globalDailyBudgetUsd'))).toEqual([]);
    const none = stackOf({ globalDailyBudgetUsd: 'none' });
    expect(capOf(Template.fromStack(none))).toEqual(new Set([undefined]));
    Annotations.fromStack(none).hasWarning('*', Match.stringLikeRegexp('globalDailyBudgetUsd=none'));
    expect(() => stackOf({ globalDailyBudgetUsd: 'lots' })).toThrow('-c globalDailyBudgetUsd must be a number');
  });
});
