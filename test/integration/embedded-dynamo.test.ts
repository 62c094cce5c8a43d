import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dynamoEngine, ensureTable, startDynamo, type EmbeddedDynamo } from '@cm/local';
import { createDocumentClient } from '@cm/store';

/* DynamoDB, on either engine, counts and times the requests it answers: the benchmark and the round-trip tests read it. */

let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ port: 0 });
  await ensureTable(dynamo.endpoint, 'embedded-test');
});
afterAll(() => dynamo.close());

it('gives each request it answered while recorded its operation and the time it took, in order', async () => {
  const db = createDocumentClient({ endpoint: dynamo.endpoint });
  await db.send(new GetCommand({ TableName: 'embedded-test', Key: { pk: 'P', sk: 'before' } }));
  const before = dynamo.requests();
  const recording = dynamo.record();
  await db.send(new PutCommand({ TableName: 'embedded-test', Item: { pk: 'P', sk: 'S', n: 1 } }));
  await db.send(new GetCommand({ TableName: 'embedded-test', Key: { pk: 'P', sk: 'S' } }));
  recording.stop();
  await db.send(new GetCommand({ TableName: 'embedded-test', Key: { pk: 'P', sk: 'after' } }));
  expect(dynamo.requests() - before).toBe(3);
  expect(recording.operations()).toEqual(['PutItem', 'GetItem']);
  const durations = recording.durations();
  expect(durations).toHaveLength(2);
  for (const ms of durations) {
    expect(Number.isFinite(ms)).toBe(true);
    expect(ms).toBeGreaterThan(0);
  }
});

it('takes its engine from DYNAMO_ENGINE: dynalite when unset, and a clear error for a name it does not know', () => {
  const setting = process.env.DYNAMO_ENGINE;
  delete process.env.DYNAMO_ENGINE;
  try {
    expect(dynamoEngine()).toBe('dynalite');
  } finally {
    if (setting !== undefined) process.env.DYNAMO_ENGINE = setting;
  }
  expect(dynamoEngine('dynalite')).toBe('dynalite');
  expect(dynamoEngine('')).toBe('dynalite');
  expect(dynamoEngine('dynamodb-local')).toBe('dynamodb-local');
  expect(() => dynamoEngine('dynamo')).toThrow(
    'Unknown DynamoDB engine "dynamo": use one of dynalite, dynamodb-local.',
  );
});

it('says DynamoDB Local needs Java when no java is on the PATH', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'cm-no-java-'));
  const path = process.env.PATH;
  process.env.PATH = empty;
  try {
    await expect(startDynamo({ port: 0, engine: 'dynamodb-local' })).rejects.toThrow(
      /DynamoDB Local needs Java 17 or later on the PATH \(java was not found\)/,
    );
  } finally {
    process.env.PATH = path;
    rmSync(empty, { recursive: true, force: true });
  }
});

it('is ready when its own DynamoDB Local says it bound the port, not when another server answers there', async () => {
  // Another server already listening on the port: as another test file's engine or proxy may be, having
  // taken it between the free-port probe and the JVM's bind. A stand-in for java binds as Jetty does
  // and prints what Jetty prints, so this runs without Java.
  const bin = mkdtempSync(join(tmpdir(), 'cm-java-'));
  writeFileSync(
    join(bin, 'jetty.cjs'),
    `const port = Number(process.argv[process.argv.indexOf('-port') + 1]);
require('node:net').createServer((socket) => socket.destroy())
  .once('error', () => { console.log('java.net.BindException: Address already in use'); process.exit(1); })
  .listen(port, '0.0.0.0', () => console.log('Started oejs.ServerConnector@1{HTTP/1.1, (http/1.1)}{0.0.0.0:' + port + '}'));
`,
  );
  writeFileSync(join(bin, 'java'), `#!/bin/sh\nexec '${process.execPath}' '${join(bin, 'jetty.cjs')}' "$@"\n`, {
    mode: 0o755,
  });
  const other = createTcpServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => other.listen(0, '0.0.0.0', resolve));
  const path = process.env.PATH;
  process.env.PATH = bin;
  try {
    const taken = (other.address() as AddressInfo).port;
    await expect(startDynamo({ port: 0, engine: 'dynamodb-local', enginePort: taken })).rejects.toThrow(
      /BindException: Address already in use/,
    );
    // On a port of its own it is up once it says so.
    const own = await startDynamo({ port: 0, engine: 'dynamodb-local' });
    await own.close();
  } finally {
    process.env.PATH = path;
    other.close();
    rmSync(bin, { recursive: true, force: true });
  }
});
