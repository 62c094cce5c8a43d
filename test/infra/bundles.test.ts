import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { budgetOf, bundleSizes, type BundleSize } from '../../infra/bundle-report';
import { FUNCTION_ENTRIES } from '../../infra/bundling';
import { checkedApp } from '../../infra/checks';
import { ContentApiStack, pascal } from '../../infra/stack';

/* Each function's bundle, built with the stack's esbuild options: in budget, and holding the SDK clients its role may use, and no others. */

let sizes: BundleSize[];
let template: Template;
beforeAll(async () => {
  sizes = await bundleSizes();
  const app = checkedApp();
  template = Template.fromStack(new ContentApiStack(app, 'Bundles', { dataforseoSecret: 'content-api/dataforseo', tavilySecret: 'content-api/tavily' }));
}, 120_000);

/** The SDK client a granted action needs; receiving from a queue is the event source's work, not the function's. */
const CLIENT_OF_ACTION: [RegExp, string][] = [
  [/^dynamodb:/, '@aws-sdk/client-dynamodb'],
  [/^sqs:SendMessage$/, '@aws-sdk/client-sqs'],
  [/^secretsmanager:GetSecretValue$/, '@aws-sdk/client-secrets-manager'],
  [/^bedrock:InvokeModel$/, '@aws-sdk/client-bedrock-runtime'],
  [/^lambda:InvokeFunction$/, '@aws-sdk/client-lambda'],
];

function clientsGranted(name: string): string[] {
  const role = `${pascal(name)}FunctionRole`;
  const actions = Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(role))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement.flatMap((s: { Action: string | string[] }) => s.Action));
  const clients = actions.flatMap((action: string) => CLIENT_OF_ACTION.filter(([pattern]) => pattern.test(action)).map(([, client]) => client));
  return [...new Set(clients)].sort();
}

describe('bundles', () => {
  it('bundles every function of the stack on its own, minified, with a source map, within its budget', () => {
    expect(sizes.map((size) => size.name)).toEqual([...FUNCTION_ENTRIES]);
    expect(Object.keys(template.findResources('AWS::Lambda::Function'))).toHaveLength(FUNCTION_ENTRIES.length);
    for (const size of sizes) {
      expect({ name: size.name, over: size.bytes > budgetOf(size.name) }).toEqual({ name: size.name, over: false });
      expect(size.mapBytes).toBeGreaterThan(size.bytes);
    }
  });

  it('holds exactly the SDK clients of the actions its role is granted', () => {
    for (const size of sizes) expect({ name: size.name, clients: size.sdkClients }).toEqual({ name: size.name, clients: clientsGranted(size.name) });
    // What that means, spelled out for a few.
    const clientsOf = (name: string) => sizes.find((size) => size.name === name)!.sdkClients;
    expect(clientsOf('discovery')).toEqual(['@aws-sdk/client-dynamodb']);
    expect(clientsOf('recall')).toEqual(['@aws-sdk/client-dynamodb']);
    expect(clientsOf('mcp')).toEqual(['@aws-sdk/client-dynamodb', '@aws-sdk/client-lambda']);
    expect(clientsOf('research-worker')).toEqual([
      '@aws-sdk/client-bedrock-runtime',
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/client-secrets-manager',
      '@aws-sdk/client-sqs',
    ]);
  });
});

describe('README', () => {
  it('lists every bundle with its budget, and a size within 10% of the bundle as built', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    for (const size of sizes) {
      const row = new RegExp(`^\\| ${size.name} \\| (\\d+) KB \\| (\\d+) KB \\|`, 'm').exec(readme);
      expect({ name: size.name, listed: row !== null }).toEqual({ name: size.name, listed: true });
      expect(Number(row![2]) * 1024).toBe(budgetOf(size.name));
      expect(Math.abs(Number(row![1]) * 1024 - size.bytes) / size.bytes).toBeLessThan(0.1);
    }
  });
});
