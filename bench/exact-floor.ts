import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '@cm/store';

/*
 * The exact floor: a bare node:http server that sends, for each request, the very DynamoDB commands the
 * service sent for one operation (the same commands, expressions and items, in the same order and with
 * the same overlap), recorded from the service's document client, to a table of its own that mirrors the
 * service's. What the service spends above it is its own overhead: HTTP framing, checks, rendering, the
 * middlewares; the embedded engine's and the SDK's cost of the requests is in both.
 */

/** A document-client command as sent: its class (to send it again), its input, and what finished before it. */
export interface SentCommand {
  command: string;
  input: Record<string, unknown>;
  /** The commands of the same operation (by index) whose replies had come when this one was sent. */
  after: number[];
  make: new (input: never) => unknown;
}

/** What the commands of a capture are compared by: all of it but the class itself. */
export const comparable = (commands: readonly SentCommand[]) =>
  commands.map(({ command, input, after }) => ({ command, input, after }));

interface Command {
  input: Record<string, unknown>;
  constructor: new (input: never) => unknown;
}

type Send = (this: DynamoDBDocumentClient, command: Command, ...rest: unknown[]) => Promise<unknown>;

/** The commands one side sent since it was last taken, and which of them had finished (by index, in order). */
class Log {
  sent: SentCommand[] = [];
  done: number[] = [];
}

/**
 * Records every command the document clients of this process send (the local stack's handlers share
 * the process): the service's in one log, those of the clients marked `floor(db)` in another.
 * `take()` and `takeFloor()` hand over each log since it was last taken; `stop()` puts `send` back.
 */
export function recordCommands() {
  const proto = DynamoDBDocumentClient.prototype as unknown as { send: Send };
  const original = proto.send;
  const floorClients = new WeakSet<DynamoDBDocumentClient>();
  let service = new Log();
  let floor = new Log();
  Object.defineProperty(proto, 'send', {
    configurable: true,
    writable: true,
    value: async function (this: DynamoDBDocumentClient, command: Command, ...rest: unknown[]) {
      const log = floorClients.has(this) ? floor : service;
      const index =
        log.sent.push({
          command: command.constructor.name,
          input: structuredClone(command.input),
          after: [...log.done],
          make: command.constructor,
        }) - 1;
      try {
        return await original.call(this, command, ...rest);
      } finally {
        log.done.push(index);
      }
    },
  });
  return {
    floor: (client: DynamoDBDocumentClient) => floorClients.add(client),
    take(): SentCommand[] {
      const taken = service.sent;
      service = new Log();
      return taken;
    },
    takeFloor(): SentCommand[] {
      const taken = floor.sent;
      floor = new Log();
      return taken;
    },
    stop: () => {
      delete (proto as Partial<{ send: Send }>).send;
    },
  };
}

export type CommandRecorder = ReturnType<typeof recordCommands>;

/** The parts of a command that carry data (items, keys, values): never rewritten, whatever names they hold. */
const DATA = new Set(['Item', 'Key', 'Keys', 'ExpressionAttributeValues', 'ExclusiveStartKey']);

/** Plain objects only, by a test that holds across realms (a clone may come from another: jest's). */
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  Object.prototype.toString.call(value) === '[object Object]';

/** A command's input with its table named `to` where it named `from` (TableName, and a batch's RequestItems). */
export function retable(value: unknown, from: string, to: string): unknown {
  if (Array.isArray(value)) return value.map((entry) => retable(entry, from, to));
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, entry]) => {
      if (DATA.has(name)) return [name, entry];
      if (name === 'TableName' && entry === from) return [name, to];
      if (name === 'RequestItems' && isPlainObject(entry))
        return [
          name,
          Object.fromEntries(
            Object.entries(entry).map(([table, items]) => [table === from ? to : table, retable(items, from, to)]),
          ),
        ];
      return [name, retable(entry, from, to)];
    }),
  );
}

/**
 * Sends `commands` on `db`, each once the commands that had finished before it was recorded have
 * finished: the same order and overlap.
 */
async function replay(db: DynamoDBDocumentClient, commands: readonly SentCommand[]): Promise<void> {
  const replies: Promise<unknown>[] = [];
  for (const { make, input, after } of commands) {
    const command = new make(input as never);
    const before = replies.filter((_, index) => after.includes(index));
    replies.push(Promise.all(before).then(() => db.send(command as never)));
  }
  await Promise.all(replies);
}

/** A reply as the service sent it: its status, its headers as they came (names' case and order), its body's bytes. */
export interface RecordedReply {
  status: number;
  /** Names and values in one list, as Node's `rawHeaders`. */
  headers: string[];
  body: Buffer;
}

/** `headers` (names and values in one list) without the Date header, which Node writes for each reply itself. */
export function withoutDate(headers: readonly string[]): string[] {
  return headers.flatMap((entry, index) =>
    index % 2 === 1 || entry.toLowerCase() === 'date' ? [] : [entry, headers[index + 1] ?? ''],
  );
}

/**
 * The exact floor's server: `POST|GET /<kind>` parses the body (as the service does), then sends the
 * oldest capture queued for `kind` (`queue(kind, commands, reply)`) and answers the service's reply to
 * it byte for byte (its Date apart, which Node writes), so the HTTP framing and the reply's size are the
 * same on both sides. With the header `x-fresh-client` it sends them on a new client, as a cold start would.
 */
export async function startExactFloor(
  recorder: CommandRecorder,
  endpoint: string,
  from: string,
  to: string,
): Promise<{
  server: Server;
  url: string;
  queue: (kind: string, commands: SentCommand[], reply: RecordedReply) => void;
  pending: (kind: string) => number;
}> {
  const client = () => {
    const db = createDocumentClient({ endpoint });
    recorder.floor(db);
    return db;
  };
  const warm = client();
  const queued = new Map<string, { commands: SentCommand[]; reply: RecordedReply }[]>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const db = req.headers['x-fresh-client'] ? client() : warm;
      const refuse = (status: number, error: string) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
      const run = async () => {
        if (chunks.length > 0) JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const kind = decodeURIComponent((req.url ?? '/').slice(1));
        const capture = queued.get(kind)?.shift();
        if (!capture) return refuse(409, `nothing queued for ${kind}`);
        await replay(db, capture.commands);
        res.writeHead(capture.reply.status, capture.reply.headers).end(capture.reply.body);
      };
      run()
        .catch((error: unknown) => refuse(500, String(error)))
        .finally(() => db !== warm && db.destroy());
    });
  });
  // Kept-alive connections stay open however long a section leaves them idle (a close would race a reuse).
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    // Renamed to the floor's table and the Date taken off here, not in the request: the service does neither.
    queue: (kind, commands, reply) =>
      queued.set(kind, [
        ...(queued.get(kind) ?? []),
        {
          commands: commands.map((sent) => ({ ...sent, input: retable(sent.input, from, to) as SentCommand['input'] })),
          reply: { ...reply, headers: withoutDate(reply.headers) },
        },
      ]),
    pending: (kind) => queued.get(kind)?.length ?? 0,
  };
}
