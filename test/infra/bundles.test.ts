import { exec, execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsCustomResource } from 'aws-cdk-lib/custom-resources';
import { build } from 'esbuild';
import { TOOL_NAMES, toolFunction } from '@cm/contract';
import { budgetOf, bundleSizes, esbuildOptions, SIDE_BUDGET_BYTES, type BundleSize } from '../../infra/bundle-report';
import { ReadableStream } from '../../infra/lazy-web-streams';
import {
  aliasesOf,
  bundlingOf,
  entryOf,
  EVENT_STREAM_FUNCTIONS,
  FUNCTION_ENTRIES,
  ROOT,
  SIDE_MODULES,
  type FunctionId,
} from '../../infra/bundling';
import { testApp } from './test-app';
import { ContentApiStack, pascal } from '../../infra/stack';
import { given } from '../helpers/client';

/* Each function's bundle, built with the stack's esbuild options: in budget, and with the SDK clients its role may use, and no others. */

let sizes: BundleSize[];
let template: Template;
beforeAll(async () => {
  sizes = await bundleSizes();
  // The template is read for its roles only: no bundling (bundleSizes built every function already).
  // Behind the edge, as deployed: the functions that answer HTTP read the origin secret.
  const app = testApp();
  const acl = (name: string) => `arn:aws:wafv2:us-east-1:123456789012:global/webacl/${name}/0f3c1a2b`;
  template = Template.fromStack(
    new ContentApiStack(app, 'Bundles', {
      dataforseoSecret: 'content-api/dataforseo',
      tavilySecret: 'content-api/tavily',
      searchConsoleSecret: 'content-api/search-console',
      edge: { api: acl('api'), stream: acl('mcp-stream') },
    }),
  );
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
    .flatMap((policy) =>
      policy.Properties.PolicyDocument.Statement.flatMap((s: { Action: string | string[] }) => s.Action),
    );
  const clients = actions.flatMap((action: string) =>
    CLIENT_OF_ACTION.filter(([pattern]) => pattern.test(action)).map(([, client]) => client),
  );
  return [...new Set(clients)].sort();
}

describe('bundles', () => {
  it('bundles every function of the stack on its own, minified, with a source map, within its budget', () => {
    expect(sizes.map((size) => size.name)).toEqual([...FUNCTION_ENTRIES]);
    // Besides them, only CDK's own function of the deploy-time checks (infra/constructs/provider-secrets.ts).
    const theirs = Object.keys(template.findResources('AWS::Lambda::Function')).filter(
      (id) => !id.startsWith(`AWS${AwsCustomResource.PROVIDER_FUNCTION_UUID.replace(/-/g, '')}`),
    );
    expect(theirs).toHaveLength(FUNCTION_ENTRIES.length);
    expect(Object.keys(template.findResources('AWS::Lambda::Function'))).toHaveLength(FUNCTION_ENTRIES.length + 1);
    for (const size of sizes) {
      expect({ name: size.name, over: size.bytes > budgetOf(size.name) }).toEqual({ name: size.name, over: false });
      expect(size.mapBytes).toBeGreaterThan(size.bytes);
      if (size.side)
        expect({ name: size.name, over: size.side.bytes > SIDE_BUDGET_BYTES }).toEqual({
          name: size.name,
          over: false,
        });
    }
    expect(
      sizes.filter((size) => size.side).map((size) => `${size.name}/${given(size.side, 'the side').file}`),
    ).toEqual(['mcp/server.js', 'mcp-stream/server.js']);
  });

  it("leaves mcp's server out of its index.js: the MCP SDK, its zod and the Lambda client are in server.js, loaded by the first POST", () => {
    const mcp = given(
      sizes.find((size) => size.name === 'mcp'),
      'the find',
    );
    for (const heavy of ['@modelcontextprotocol/server', '@aws-sdk/client-lambda'])
      expect({
        heavy,
        index: mcp.packages.includes(heavy),
        side: given(mcp.side, 'the side').packages.includes(heavy),
      }).toEqual({
        heavy,
        index: false,
        side: true,
      });
    expect(mcp.ownFiles).not.toContain('packages/runtime/src/mcp/server.ts');
    expect(given(mcp.side, 'the side').ownFiles).toContain('packages/runtime/src/mcp/server.ts');
    // Nothing the server needs is left to chance: the MCP SDK's ajv is a stub in it (no elicitation is validated).
    expect(given(mcp.side, 'the side').packages).not.toContain('ajv');
  });

  it("mcp's bundling writes server.js and the MCP Apps beside index.js, with the commands cdk synth runs", async () => {
    const out = mkdtempSync(join(tmpdir(), 'mcp-bundling-'));
    try {
      for (const command of given(bundlingOf('mcp').commandHooks, 'the commandHooks').afterBundling(ROOT, out))
        await promisify(exec)(command, { cwd: ROOT });
      expect(readdirSync(out).sort()).toEqual(['mcp-apps', 'server.js', 'server.js.map']);
      expect(readdirSync(join(out, 'mcp-apps')).sort()).toEqual([
        'backlinks.html',
        'keyword-landscape.html',
        'search-traffic.html',
        'spend.html',
      ]);
      expect(given(SIDE_MODULES.mcp, 'the mcp').file).toBe('server.js');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);

  it('holds exactly the SDK clients of the actions its role is granted', () => {
    for (const size of sizes)
      expect({
        name: size.name,
        clients: [...new Set([...size.sdkClients, ...(size.side?.sdkClients ?? [])])].sort(),
      }).toEqual({
        name: size.name,
        clients: clientsGranted(size.name),
      });
    // What that means, spelled out for a few.
    const clientsOf = (name: string) =>
      given(
        sizes.find((size) => size.name === name),
        'the find',
      ).sdkClients;
    // Every function that answers HTTP reads the origin secret; the workers answer none.
    const withOrigin = ['@aws-sdk/client-dynamodb', '@aws-sdk/client-secrets-manager'];
    expect(clientsOf('discovery')).toEqual(withOrigin);
    expect(clientsOf('recall')).toEqual(withOrigin);
    expect(clientsOf('mcp')).toEqual(withOrigin);
    expect(clientsOf('relink-pages-worker')).toEqual(['@aws-sdk/client-dynamodb']);
    expect(
      given(
        given(
          sizes.find((size) => size.name === 'mcp'),
          'the find',
        ).side,
        'the side',
      ).sdkClients,
    ).toEqual(['@aws-sdk/client-lambda']);
    expect(clientsOf('research-worker')).toEqual([
      '@aws-sdk/client-bedrock-runtime',
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/client-secrets-manager',
      '@aws-sdk/client-sqs',
    ]);
  });
});

describe('what a bundle leaves out', () => {
  it("carries the SDK's event-stream code only where a client has streaming operations, and a stub that says so elsewhere", () => {
    const hasStreams = (clients: string[]) =>
      clients.some((client) => client === '@aws-sdk/client-lambda' || client === '@aws-sdk/client-bedrock-runtime');
    for (const size of sizes) {
      const streams = hasStreams(size.sdkClients);
      expect({ name: size.name, listed: EVENT_STREAM_FUNCTIONS.includes(size.name as FunctionId) }).toEqual({
        name: size.name,
        listed: streams,
      });
      // The dashboard has no SDK client at all, so nothing of either.
      const stub = size.sdkClients.length > 0 && !streams;
      expect({ name: size.name, stub: size.ownFiles.includes('infra/lambda-event-streams.ts') }).toEqual({
        name: size.name,
        stub,
      });
      // A side module keeps them for its streaming client (mcp's Lambda client).
      if (size.side) {
        expect(hasStreams(size.side.sdkClients)).toBe(true);
        expect(size.side.ownFiles).not.toContain('infra/lambda-event-streams.ts');
      }
    }
  });

  it("loads Node's web streams with the first check that asks for them, not at a cold start", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cm-web-streams-'));
    try {
      const bundle = join(dir, 'index.js');
      await build(esbuildOptions(entryOf('read'), bundle, aliasesOf('read')));
      const loaded = async (then: string) =>
        (
          await promisify(execFile)(
            process.execPath,
            [
              '-e',
              `require(${JSON.stringify(bundle)});${then};console.log(process.moduleLoadList.includes('NativeModule stream/web'))`,
            ],
            {
              env: {
                PATH: process.env.PATH,
                TABLE_NAME: 't',
                AWS_REGION: 'us-east-1',
                POWERTOOLS_METRICS_DISABLED: 'true',
              },
            },
          )
        ).stdout.trim();
      expect(await loaded('')).toBe('false');
      expect(await loaded("require('node:stream/web')")).toBe('true');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("answers middy's one question of web streams as Node's own class would", async () => {
    const { ReadableStream: Node } = await import('node:stream/web');
    const { Readable } = await import('node:stream');
    expect(new Node() instanceof ReadableStream).toBe(true);
    expect(Readable.from(['a']) instanceof ReadableStream).toBe(false);
    const body: unknown = 'a body as a string';
    expect(body instanceof ReadableStream).toBe(false);
  });

  it("carries classic zod only in the MCP endpoints' server.js, whose MCP SDK imports it: the contract is zod/mini", () => {
    expect(sizes.filter((size) => size.classicZod).map((size) => size.name)).toEqual([]);
    expect(sizes.filter((size) => size.side?.classicZod).map((size) => size.name)).toEqual(['mcp', 'mcp-stream']);
    // zod/mini has no messages of its own: zod-config.ts configures zod's English ones (and "Required"), so every bundle with zod must run it.
    for (const size of sizes.filter((s) => s.packages.includes('zod'))) {
      expect({ name: size.name, configured: size.ownFiles.includes('packages/contract/src/zod-config.ts') }).toEqual({
        name: size.name,
        configured: true,
      });
    }
  });

  it("carries in a tool's function its own tool's declaration and no other tool's schemas", () => {
    // A tool's declaration file, or the file that once held every tool's schemas.
    const declarations = (size: BundleSize) =>
      size.ownFiles.filter((file) =>
        /^packages\/contract\/src\/tools(\.ts|\/(?!shared|keyword-row|declaration|index)[^/]+\.ts)$/.test(file),
      );
    for (const name of TOOL_NAMES) {
      const size = given(
        sizes.find((candidate) => candidate.name === toolFunction(name)),
        'the find',
      );
      expect({ name, declarations: declarations(size) }).toEqual({
        name,
        declarations: [`packages/contract/src/tools/${name.replace(/_/g, '-')}.ts`],
      });
    }
    // The functions that list or document every tool carry them all; no other function carries any.
    const others = sizes.filter((size) => !TOOL_NAMES.some((name) => toolFunction(name) === size.name));
    expect(others.filter((size) => declarations(size).length > 0).map((size) => size.name)).toEqual([
      'discovery',
      'tools',
    ]);
  });

  it('carries the documentation of every route (schemas of all bodies and replies) only where the OpenAPI document is served', () => {
    for (const size of sizes) {
      const documents = size.ownFiles.filter(
        (file) => file === 'packages/contract/src/routes.ts' || file === 'packages/contract/src/openapi.ts',
      );
      expect({ name: size.name, documents }).toEqual({
        name: size.name,
        documents:
          size.name === 'discovery' ? ['packages/contract/src/openapi.ts', 'packages/contract/src/routes.ts'] : [],
      });
    }
  });
});

describe('docs/performance.md', () => {
  it('lists every bundle with its budget, and a size within 10% of the bundle as built', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'docs', 'performance.md'), 'utf8');
    for (const size of sizes) {
      const row = new RegExp(`^\\| ${size.name} \\| (\\d+) KB \\| (\\d+) KB \\|`, 'm').exec(readme);
      expect({ name: size.name, listed: row !== null }).toEqual({ name: size.name, listed: true });
      expect(Number(given(row, 'the row')[2]) * 1024).toBe(budgetOf(size.name));
      expect(Math.abs(Number(given(row, 'the row')[1]) * 1024 - size.bytes) / size.bytes).toBeLessThan(0.1);
    }
  });
});

describe('credentials', () => {
  /** The SDK's credential and token providers, and the STS/SSO clients of their chains. */
  const CREDENTIAL_CHAIN = /^@aws-sdk\/(credential-provider-|token-providers$|nested-clients$)/;

  it('bundles only the environment credential provider, none of the default chain (ini files, SSO, process, web identity, STS)', () => {
    for (const size of sizes) {
      const expected =
        size.sdkClients.length === 0
          ? []
          : // Bedrock's bearer token chain (SSO-OIDC) is still bundled; only the research worker calls Bedrock.
            size.name === 'research-worker'
            ? ['@aws-sdk/credential-provider-env', '@aws-sdk/nested-clients', '@aws-sdk/token-providers']
            : ['@aws-sdk/credential-provider-env'];
      expect({ name: size.name, chain: size.packages.filter((name) => CREDENTIAL_CHAIN.test(name)) }).toEqual({
        name: size.name,
        chain: expected,
      });
    }
  });

  it("a bundled DynamoDB client signs with the environment's credentials, even where the default chain would take a profile, and says so when there are none", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cm-credentials-'));
    const authorizations: string[] = [];
    const dynamo = createServer((req, res) => {
      authorizations.push(String(req.headers.authorization));
      req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}'));
    });
    try {
      const bundle = join(dir, 'index.js');
      await build(esbuildOptions(join(__dirname, '..', '..', 'bench', 'minimal-handler.ts'), bundle));
      const endpoint = await new Promise<string>((resolve) =>
        dynamo.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`)),
      );
      const run = (credentials: Record<string, string>) =>
        promisify(execFile)(
          process.execPath,
          ['-e', `require(${JSON.stringify(bundle)}).handler({ id: 'a' }).then(String, (e) => console.log(e.message))`],
          {
            // No real profile or instance metadata is reachable: only what is set here.
            env: {
              PATH: process.env.PATH,
              HOME: dir,
              AWS_REGION: 'us-east-1',
              AWS_EC2_METADATA_DISABLED: 'true',
              AWS_ENDPOINT_URL_DYNAMODB: endpoint,
              TABLE_NAME: 't',
              ...credentials,
            },
          },
        );
      // With AWS_PROFILE set the default chain skips the environment for a profile, which does not exist here.
      await run({
        AWS_ACCESS_KEY_ID: 'AKIDFROMENV',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_SESSION_TOKEN: 'token',
        AWS_PROFILE: 'elsewhere',
      });
      expect(authorizations).toEqual([expect.stringContaining('Credential=AKIDFROMENV/')]);
      expect((await run({})).stdout).toMatch(/^No AWS credentials in the environment/);
      expect(authorizations).toHaveLength(1);
    } finally {
      dynamo.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
