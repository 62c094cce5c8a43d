import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as z from 'zod/mini';
// dynalite's own item size, the one it bills a request's capacity by (DynamoDB's rules: names and values).
import { itemSize } from 'dynalite/db';

/*
 * DynamoDB's billed capacity of the requests the handlers make: a loopback proxy in front of the
 * embedded DynamoDB asks each item request for its consumed capacity (ReturnConsumedCapacity), which
 * dynalite computes as DynamoDB does from the items' sizes (a write unit per KB written, the larger of
 * the old and new item; a read unit per 4 KB read consistently, half eventually), and adds it up.
 * dynalite leaves out the writes to the global secondary indexes, which DynamoDB bills too: a put
 * that carries an index's key is counted as a write to that index of the item's size (an upper
 * bound for the indexes that project a few attributes), an update that sets an index key as one
 * write unit per index; a delete's index writes are not counted.
 */

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);
const INDEX_KEY = /^gsi\d+pk$/;

export interface Capacity {
  readUnits: number;
  writeUnits: number;
  /** Write units of the global secondary indexes (estimated: see above). */
  indexWriteUnits: number;
  requests: number;
}

const Item = z.record(z.string(), z.unknown());
/** The parts of an item request the count reads; the rest goes to DynamoDB as it came. */
const ItemRequest = z.looseObject({
  Item: z.optional(Item),
  ExpressionAttributeNames: z.optional(z.record(z.string(), z.string())),
  RequestItems: z.optional(z.record(z.string(), z.unknown())),
});
/** A BatchWriteItem's writes to one table. */
const TableWrites = z.array(z.object({ PutRequest: z.optional(z.object({ Item })) }));
type ItemRequest = z.output<typeof ItemRequest>;
const Consumed = z.object({ CapacityUnits: z.optional(z.number()) });
const ItemReply = z.object({ ConsumedCapacity: z.optional(z.union([Consumed, z.array(Consumed)])) });

const unitsOf = ({ ConsumedCapacity: consumed }: z.output<typeof ItemReply>) =>
  (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce((s, c) => s + (c.CapacityUnits ?? 0), 0);

/** Write units of the indexes a put of `item` writes to. */
function indexWrites(item: Record<string, unknown>): number {
  const indexes = Object.keys(item).filter((name) => INDEX_KEY.test(name)).length;
  return indexes === 0 ? 0 : indexes * Math.ceil(itemSize(item) / 1024);
}

function indexWritesOf(operation: string, body: ItemRequest): number {
  if (operation === 'PutItem') return indexWrites(body.Item ?? {});
  if (operation === 'UpdateItem')
    return Object.values(body.ExpressionAttributeNames ?? {}).filter((name) => INDEX_KEY.test(name)).length;
  if (operation === 'BatchWriteItem')
    return Object.values(body.RequestItems ?? {})
      .flatMap((writes) => TableWrites.parse(writes))
      .reduce((sum, write) => sum + (write.PutRequest ? indexWrites(write.PutRequest.Item) : 0), 0);
  return 0;
}

/** A counting proxy to `endpoint`: point the handlers' DynamoDB client at `url`. */
export async function countCapacity(endpoint: string): Promise<{
  url: string;
  capacity(): Capacity;
  reset(): void;
  close(): Promise<void>;
}> {
  let counted: Capacity = { readUnits: 0, writeUnits: 0, indexWriteUnits: 0, requests: 0 };
  const target = new URL(endpoint);
  const agent = new Agent({ keepAlive: true });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const operation = String(req.headers['x-amz-target'] ?? '')
        .split('.')
        .pop()!;
      let payload = Buffer.concat(chunks);
      const item = READS.has(operation) || WRITES.has(operation);
      if (item) {
        const body = ItemRequest.parse(JSON.parse(payload.toString('utf8')));
        if (WRITES.has(operation)) counted.indexWriteUnits += indexWritesOf(operation, body);
        payload = Buffer.from(JSON.stringify({ ...body, ReturnConsumedCapacity: 'TOTAL' }));
        counted.requests++;
      }
      const upstream = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          agent,
          headers: { ...req.headers, 'content-length': String(payload.length) },
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const reply = Buffer.concat(parts);
            if (item && answer.statusCode === 200) {
              const units = unitsOf(ItemReply.parse(JSON.parse(reply.toString('utf8'))));
              if (READS.has(operation)) counted.readUnits += units;
              else counted.writeUnits += units;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(reply);
          });
        },
      );
      upstream.once('error', (error) => res.destroy(error));
      upstream.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    capacity: () => ({ ...counted }),
    reset: () => {
      counted = { readUnits: 0, writeUnits: 0, indexWriteUnits: 0, requests: 0 };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
