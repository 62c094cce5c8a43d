import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEFAULT_BUDGETS } from '@cm/contract';
import { dynamoEngine, ensureTable, runSites, startDynamo, startLocalStack } from '@cm/local';
import { monitoringMonthPrice } from '@cm/providers';
import { startProcessStack } from '../helpers/process-stack';
import { given } from '../helpers/client';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

describe('local stack', () => {
  it('`npm start` prints the demo site’s dashboard URL, with its key in the fragment, and that page serves', async () => {
    const stack = await startProcessStack();
    try {
      const line = stack.printed.split('\n').find((l) => l.startsWith('Dashboard: '));
      expect(line).toBe(`Dashboard: ${stack.url.replace('127.0.0.1', 'localhost')}/dashboard#key=${stack.key}`);
      const page = await fetch(given(line, 'the line').slice('Dashboard: '.length).replace('localhost', '127.0.0.1'));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('/dashboard/assets/');
    } finally {
      await stack.stop();
    }
  }, 60_000);

  it('keeps data under its data directory: the demo site and pages survive a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cm-data-'));
    try {
      const first = await startLocalStack({ dataDir, port: 0, dynamoPort: 0, demoSite: true });
      expect(first.demoCreated).toBe(true);
      const key = given(first.demo, 'the demo').api_key;
      const publish = await fetch(`${first.url}/articles`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ slug: 'persisted', title: 'Persisted', body: [] }),
      });
      expect(publish.status).toBe(201);
      await first.stop();

      // The directory belongs to the engine that made it: the other one is refused, saying what to do.
      const other = dynamoEngine() === 'dynalite' ? 'dynamodb-local' : 'dynalite';
      await expect(startLocalStack({ dataDir, port: 0, dynamoPort: 0, demoSite: true, engine: other })).rejects.toThrow(
        `The data directory ${dataDir} holds ${dynamoEngine()}'s data, not ${other}'s: set DATA_DIR to another directory for ${other}, use --memory, or start with --engine ${dynamoEngine()}.`,
      );

      const second = await startLocalStack({ dataDir, port: 0, dynamoPort: 0, demoSite: true });
      try {
        expect(second.demoCreated).toBe(false);
        expect(second.demo).toEqual(first.demo);
        const read = await fetch(`${second.url}/articles?slug=persisted`, { headers: { 'x-api-key': key } });
        expect(read.status).toBe(200);
        expect(((await read.json()) as { title: string }).title).toBe('Persisted');
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('`npm run sites -- create` prints {"site_id","api_key"} on one line, with its budget and what monitoring its domain costs, and the key works', async () => {
    const dynamo = await startDynamo({ port: 0 });
    try {
      await ensureTable(dynamo.endpoint, 'cli-test');
      const env = { ...process.env, DYNAMODB_ENDPOINT: dynamo.endpoint, TABLE_NAME: 'cli-test' };
      const cli = join(ROOT, 'packages/local/src/sites-cli.ts');
      const tsx = join(ROOT, 'node_modules/.bin/tsx');
      const { stdout } = await run(
        tsx,
        [cli, 'create', '--name', 'Shop', '--domain', 'Shop.Example.com', '--locale', 'US/en'],
        { env, cwd: ROOT },
      );
      const lines = stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const created = JSON.parse(given(lines[0], 'the lines[0]'));
      const month = monitoringMonthPrice('site');
      expect(created).toEqual({
        site_id: 1,
        api_key: expect.stringMatching(/^cmk_[A-Za-z0-9_-]{43}$/),
        budget: { daily_usd: DEFAULT_BUDGETS.siteDailyUsd, monthly_usd: DEFAULT_BUDGETS.siteMonthlyUsd },
        monitoring: {
          domain: 'shop.example.com',
          month_usd: month.usd,
          at_most_month_usd: month.at_most_usd,
          paused: false,
        },
      });

      // The next ones through what the CLI runs, in this process (the process itself is shown above, and
      // its exit codes in test/integration/sites.test.ts): the next id, and a bad domain refused with 2.
      const sites = async (...args: string[]) => {
        const out = { stdout: '', stderr: '' };
        const code = await runSites(
          args,
          { log: (line) => (out.stdout += `${line}\n`), error: (line) => (out.stderr += `${line}\n`) },
          env,
        );
        return { code, ...out };
      };
      const second = await sites('create', '--name', 'Two', '--domain', 'two.example');
      expect(second.code).toBe(0);
      expect(JSON.parse(second.stdout).site_id).toBe(2);

      expect(await sites('create', '--name', 'Bad', '--domain', 'not a domain')).toMatchObject({
        code: 2,
        stdout: '',
        stderr: expect.stringContaining('--domain'),
      });
    } finally {
      await dynamo.close();
    }
  });

  it('refuses a table made by an older version that lacks an index, saying how to start afresh', async () => {
    const dynamo = await startDynamo({ port: 0 });
    const client = new DynamoDBClient({
      endpoint: dynamo.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      await client.send(
        new CreateTableCommand({
          TableName: 'old-table',
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [
            { AttributeName: 'pk', AttributeType: 'S' },
            { AttributeName: 'sk', AttributeType: 'S' },
          ],
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
        }),
      );
      await expect(ensureTable(dynamo.endpoint, 'old-table')).rejects.toThrow(
        /lacks the indexes gsi1, gsi2, gsi3, gsi4.*Remove the data directory/,
      );
      await expect(ensureTable(dynamo.endpoint, 'new-table')).resolves.toBeUndefined();
    } finally {
      client.destroy();
      await dynamo.close();
    }
  });
});
