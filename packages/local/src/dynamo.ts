import type { AddressInfo } from 'node:net';
import type { Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { TABLE } from '@cm/store';

export interface EmbeddedDynamo {
  endpoint: string;
  port: number;
  /** HTTP requests the embedded DynamoDB has answered: one per round trip. */
  requests(): number;
  /** The operation of each request so far, in order (`Query`, `BatchGetItem`, …). */
  operations(): string[];
  /** How long the embedded DynamoDB took to answer each request so far, in ms, in the order of `operations()`. */
  durations(): number[];
  close(): Promise<void>;
}

/** The embedded DynamoDB (dynalite): on disk under `path`, or in memory without one. */
export async function startDynamo(options: { port: number; path?: string }): Promise<EmbeddedDynamo> {
  const server: Server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  let requests = 0;
  const operations: string[] = [];
  const durations: number[] = [];
  server.on('request', (req: { headers: Record<string, string | string[] | undefined> }, res: ServerResponse) => {
    const at = durations.push(Number.NaN) - 1;
    const started = performance.now();
    const done = () => {
      if (Number.isNaN(durations[at])) durations[at] = performance.now() - started;
    };
    res.once('finish', done);
    // A request whose client went away before the answer was sent ends here instead.
    res.once('close', done);
    requests++;
    operations.push(
      String(req.headers['x-amz-target'] ?? '')
        .split('.')
        .pop() ?? '',
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    requests: () => requests,
    operations: () => [...operations],
    durations: () => [...durations],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Creates the table as the CDK stack does, unless it exists; waits until it is ACTIVE. */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const keyAttributes = [TABLE.partitionKey, TABLE.sortKey, ...TABLE.indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE.indexes.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: index.projection === 'all' ? { ProjectionType: 'ALL' } : { ProjectionType: 'INCLUDE', NonKeyAttributes: [...TABLE.listingAttributes] },
        })),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  let indexes: string[] = [];
  for (let i = 0; i < 100; i++) {
    const out = await client.send(new DescribeTableCommand({ TableName: tableName }));
    indexes = (out.Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName ?? '');
    if (out.Table?.TableStatus === 'ACTIVE') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  client.destroy();
  // The embedded DynamoDB cannot add an index to a table; a table from an older version must be made anew.
  const missing = TABLE.indexes.map((index) => index.name).filter((name) => !indexes.includes(name));
  if (missing.length > 0) {
    throw new Error(
      `The local table ${tableName} lacks the indexes ${missing.join(', ')}: it was made by an older version. ` +
        'Remove the data directory (.data) to start afresh, or use --memory.',
    );
  }
}
