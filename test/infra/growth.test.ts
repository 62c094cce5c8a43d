import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { FUNCTIONS, TOOL_NAMES, toolFunction } from '@cm/contract';
import { FUNCTION_ENTRIES } from '../../infra/bundling';
import { testApp } from './test-app';
import { RESERVED_TOTAL } from '../../infra/constructs/concurrency';
import { BACKUPS } from '../../infra/constructs/storage';
import { serviceStacks } from '../../infra/service-stacks';
import { pascal } from '../../infra/stack';
import { given } from '../helpers/client';

/*
 * A stack that can grow (issue 50, point 7): room for the next 20 tools under CloudFormation's limits
 * at what a tool costs each template now, AWS Backup sized beside point-in-time recovery, and
 * operations.md's concurrency as the code makes it (the runbook's figures: doc-figures.test.ts). The app's
 * stacks, without bundling.
 */
const app = testApp();
const { service } = serviceStacks(app, {});
const main = Template.fromStack(service).toJSON();
const nested = (id: string) => {
  const stack = service.node.tryFindChild(id) as NestedStack | undefined;
  return stack ? Template.fromStack(stack).toJSON() : { Resources: {}, Parameters: {}, Outputs: {} };
};
const alarms = nested('Alarms');
const logs = nested('Logs');
const integrations = nested('Integrations');
/** A doc page's text, its lines joined: a sentence reads the same however it is wrapped. */
const docs = (page: string) => readFileSync(join(__dirname, '..', '..', 'docs', page), 'utf8').replace(/\s+/g, ' ');

/** CloudFormation's limits of one template (a nested stack is one resource of its parent's). */
const LIMITS = { resources: 500, parameters: 200, outputs: 200 };
const NEXT_TOOLS = 20;

type Resources = Record<string, { Type: string; Properties?: unknown }>;
const count = (o: object | undefined) => Object.keys(o ?? {}).length;

/** The parameters the service stack passes its nested stack `id`, as it passes them. */
function passedTo(id: string): Record<string, unknown> {
  const stack = Object.entries(main.Resources as Resources).find(
    ([rid, r]) => r.Type === 'AWS::CloudFormation::Stack' && rid.startsWith(id),
  );
  return (given(stack, `the nested stack ${id}`)[1].Properties as any).Parameters;
}

/**
 * The function each route of the service stack invokes (its logical id): its target is an output of the
 * nested stack `Integrations`, an integration whose URI is a parameter, the function's ARN.
 */
const functionOfRoute = new Map(
  Object.entries(main.Resources as Resources)
    .filter(([, r]) => r.Type === 'AWS::ApiGatewayV2::Route')
    .map(([id, route]) => {
      const [, target] = (route.Properties as any).Target['Fn::Join'][1];
      const output = String(target['Fn::GetAtt'][1]).slice('Outputs.'.length);
      const integration = integrations.Resources[integrations.Outputs[output].Value.Ref];
      const param = integration.Properties.IntegrationUri.Ref;
      return [id, (passedTo('Integrations')[param] as any)['Fn::GetAtt'][0] as string];
    }),
);

/**
 * What one tool function costs a template: the resources that are its own (its id's), or that name it
 * or them (its alarms), and the routes to its integration.
 */
function costOf(resources: Resources, fn: string, refersTo: (text: string, id: string) => boolean): number {
  const own = Object.keys(resources).filter((id) =>
    new RegExp(`^${pascal(fn)}(Function|Logs|Latency|Error|Concurrency)`).test(id),
  );
  const naming = Object.entries(resources)
    .filter(([id, r]) => !own.includes(id) && own.some((o) => refersTo(JSON.stringify(r.Properties ?? {}), o)))
    .map(([id]) => id);
  const routes = Object.keys(resources).filter((id) => own.includes(functionOfRoute.get(id) ?? ''));
  // Another function's policy or environment naming this one (mcp's), or a nested stack passing it on, is
  // a resource already there, not a new one.
  const made = naming.filter(
    (id) =>
      !['AWS::IAM::Policy', 'AWS::Lambda::Function', 'AWS::CloudFormation::Stack'].includes(
        given(resources[id], 'the resources[id]').Type,
      ),
  );
  return own.length + made.length + routes.length;
}

/** What one tool function costs the nested stack `id`: the resources that name a parameter naming it. */
function nestedCostOf(id: string, template: Record<string, any>, fn: string): number {
  const fnId = given(
    Object.keys(main.Resources).find((r) => new RegExp(`^${pascal(fn)}Function[0-9A-F]{8}$`).test(r)),
    `the function ${fn}`,
  );
  const passed = passedTo(id);
  const params = Object.keys(passed).filter((p) => JSON.stringify(passed[p]).includes(`"${fnId}"`));
  return Object.values(template.Resources as Resources).filter((r) =>
    params.some((p) => JSON.stringify(r.Properties).includes(`"${p}"`)),
  ).length;
}

/** The most any tool costs `resources`, over every tool function. */
const toolCost = (resources: Resources, refersTo: (text: string, id: string) => boolean) =>
  Math.max(...TOOL_NAMES.map(toolFunction).map((fn) => costOf(resources, fn, refersTo)));

describe('room for the next 20 tools', () => {
  it('keeps room in the service stack and in each nested stack for 20 more tools at what a tool costs each now', () => {
    const inMain = toolCost(main.Resources, (text, id) => text.includes(`"${id}"`));
    // A tool's function, role, policy and route: its log group, alarms, integration and invoke permission are nested.
    expect(inMain).toBe(4);
    expect(count(main.Resources) + NEXT_TOOLS * inMain).toBeLessThanOrEqual(LIMITS.resources);

    // The alarms' stack names the main stack's resources through its parameters, one per resource.
    const params = Object.keys(alarms.Parameters ?? {});
    const paramsOf = (id: string) => params.filter((p) => p.includes(id.replace(/[0-9A-F]{8}$/, '')));
    const inAlarms = toolCost(alarms.Resources, (text, id) => paramsOf(id).some((p) => text.includes(`"${p}"`)));
    // Its errors, its latency, and a paid tool's concurrency.
    expect(inAlarms).toBe(3);
    expect(count(alarms.Resources) + NEXT_TOOLS * inAlarms).toBeLessThanOrEqual(LIMITS.resources);
    expect(params.length + NEXT_TOOLS).toBeLessThanOrEqual(LIMITS.parameters);

    // The log groups' stack: one each, and its name and ARN as outputs the function and its role read.
    expect(count(logs.Resources)).toBe(FUNCTION_ENTRIES.length);
    expect(count(logs.Outputs)).toBe(2 * FUNCTION_ENTRIES.length);
    expect(count(logs.Outputs) + NEXT_TOOLS * 2).toBeLessThanOrEqual(LIMITS.outputs);

    // The integrations' stack: a tool's integration and invoke permission, its function's ARN as a
    // parameter, and its integration as the output its route reads.
    const inIntegrations = Math.max(
      ...TOOL_NAMES.map(toolFunction).map((fn) => nestedCostOf('Integrations', integrations, fn)),
    );
    expect(inIntegrations).toBe(2);
    expect(count(integrations.Resources) + NEXT_TOOLS * inIntegrations).toBeLessThanOrEqual(LIMITS.resources);
    expect(count(integrations.Parameters) + NEXT_TOOLS).toBeLessThanOrEqual(LIMITS.parameters);
    expect(count(integrations.Outputs)).toBe(FUNCTIONS.length);
    expect(count(integrations.Outputs) + NEXT_TOOLS).toBeLessThanOrEqual(LIMITS.outputs);

    // architecture/aws-stack.md's figure is this template's, and the one place that gives it.
    const room = Math.floor((LIMITS.resources - count(main.Resources)) / inMain);
    const architecture = docs('architecture/aws-stack.md');
    expect(architecture).toContain(`${count(main.Resources)} of 500 leaves room for ${room} more tools`);
    expect(architecture).toContain(`a tool costs the service stack ${inMain}`);
    expect(architecture).toContain(`holds room for ${NEXT_TOOLS}`);
    expect(architecture.match(/the (?:service )?stack has \d+/g) ?? []).toEqual([]);
  });
});

describe('backups', () => {
  it('keeps AWS Backup copies beside point-in-time recovery: weekly for PITR’s 35 days, monthly a year (doc-figures.test.ts holds the runbook to them)', () => {
    const [plan] = Object.values(main.Resources as Resources).filter((r) => r.Type === 'AWS::Backup::BackupPlan');
    const rules = (given(plan, 'the plan').Properties as any).BackupPlan.BackupPlanRule as any[];
    expect(rules.map((r) => [r.RuleName, r.ScheduleExpression, r.Lifecycle.DeleteAfterDays])).toEqual([
      ['weekly', 'cron(0 5 ? * SUN *)', BACKUPS.weekly.keptDays],
      ['monthly', 'cron(0 5 1 * ? *)', BACKUPS.monthly.keptDays],
    ]);
    // The copies kept at most: one a week for 35 days, one a month for 365.
    expect(Math.ceil(BACKUPS.weekly.keptDays / 7)).toBe(BACKUPS.weekly.copies);
    expect(Math.floor(BACKUPS.monthly.keptDays / 30)).toBe(BACKUPS.monthly.copies);
  });
});

describe('operations.md, against the code', () => {
  it('gives the reserved concurrency and the quota it needs as concurrency.ts makes them', () => {
    const quota = RESERVED_TOTAL + 100; // Lambda keeps 100 of the account's quota unreserved.
    const operations = docs('operations.md');
    expect(operations).toContain(`(${RESERVED_TOTAL} in all`);
    expect(operations).toContain(`quota must be ${quota} or more`);
    expect(operations).toContain(`concurrency quota is under ${quota}`);
    // The code's comments: the figure derived, or the one it makes.
    const source = (file: string) => readFileSync(join(__dirname, '..', '..', file), 'utf8').replace(/\s*\*?\s+/g, ' ');
    expect(source('infra/stack.ts')).not.toMatch(new RegExp(`RESERVED_TOTAL \\+ 100 \\((?!${quota}\\))\\d+\\)`));
    expect(source('infra/constructs/concurrency.ts')).toContain(
      `= ${RESERVED_TOTAL}, which needs an account concurrency quota of at least ${quota}`,
    );
    // No other figure where they are named (the runbook's: doc-figures.test.ts).
    expect(
      operations
        .match(/(?:reserves|needs|under|must be) (\d+)\b(?!%)/g)
        ?.filter((m) => !m.endsWith(` ${RESERVED_TOTAL}`) && !m.endsWith(` ${quota}`)) ?? [],
    ).toEqual([]);
  });
});
