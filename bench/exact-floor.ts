import type { Server } from 'node:http';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { FUNCTIONS, type FunctionName } from '@cm/contract';
import { createApiServer, listen, RateLimiter } from '@cm/local';
import { createDocumentClient } from '@cm/store';

/*
 * The exact floor: the local stack's API server with a handler that sends, for each request, the very
 * DynamoDB commands the service sent for one operation (the same commands, expressions and items, in the
 * same order and with the same overlap), recorded from the service's document client, to a table of its
 * own that mirrors the service's, and returns the service's reply. What the service spends above it is
 * its own overhead: its middlewares, checks, decoding and rendering; the HTTP framing, what API Gateway
 * does (the local server's route match and event) and the embedded engine's and the SDK's cost of the
 * requests are in both.
 */

/** A document-client command as sent: its class (to send it again), its input, and what finished before it. */
export interface SentCommand {
  command: string;
  input: Record<string, unknown>;
  /** The commands of the same operation (by index, ascending) whose replies had come when this one was sent. */
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
          // By index: commands sent together finish in either order (DynamoDB Local is a process of its own).
          after: [...log.done].sort((a, b) => a - b),
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

/**
 * `headers` (names and values in one list) without those a server writes by its own clock and settings
 * (Date; Keep-Alive, its idle timeout): what two servers answering the same reply may differ in.
 */
export function withoutServerHeaders(headers: readonly string[]): string[] {
  return headers.flatMap((entry, index) =>
    index % 2 === 1 || ['date', 'keep-alive'].includes(entry.toLowerCase()) ? [] : [entry, headers[index + 1] ?? ''],
  );
}

/** The headers Node writes on each reply itself: a handler's result never has them. */
const NODE_WRITES = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * The handler's result that the local server answers as `reply` was answered: its headers as they came
 * but those Node writes, its body as text, or as base64 when it is encoded (gzip), as the service's are.
 */
export function resultOf(reply: RecordedReply): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = {};
  for (let index = 0; index + 1 < reply.headers.length; index += 2) {
    const name = reply.headers[index]!;
    if (!NODE_WRITES.has(name.toLowerCase())) headers[name] = reply.headers[index + 1]!;
  }
  const encoded = Object.keys(headers).some((name) => name.toLowerCase() === 'content-encoding');
  return {
    statusCode: reply.status,
    headers,
    body: reply.body.toString(encoded ? 'base64' : 'utf8'),
    isBase64Encoded: encoded,
  };
}

/** The header naming which queue of captures a request to the exact floor takes the oldest of. */
export const FLOOR_KIND = 'x-floor-kind';
/** The header that has a floor use a new DynamoDB client for the request, as a cold start would. */
export const FRESH_CLIENT = 'x-fresh-client';

/**
 * The exact floor's server: the local stack's own API server (the route table's match, the API Gateway
 * event, the reply written from a handler's result: what API Gateway does on AWS, not the service) with
 * one handler for every function. It parses the body (as the service does), sends the oldest capture
 * queued for the kind the header `x-floor-kind` names (`queue(kind, commands, reply)`) and returns the
 * service's reply to it as its result, so the reply goes out byte for byte as the service's did (but the
 * Date and Keep-Alive headers, which Node writes). With the header `x-fresh-client` it sends them on a new client, as a cold
 * start would. Sent the service's request (method, path, headers) and the kind, it does all the service
 * does but the service's own work.
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
  const queued = new Map<string, { commands: SentCommand[]; result: APIGatewayProxyStructuredResultV2 }[]>();
  const floor = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const db = event.headers[FRESH_CLIENT] ? client() : warm;
    try {
      if (event.body) JSON.parse(event.body);
      const kind = event.headers[FLOOR_KIND] ?? '';
      const capture = queued.get(kind)?.shift();
      if (!capture) return { statusCode: 409, body: JSON.stringify({ error: `nothing queued for ${kind}` }) };
      await replay(db, capture.commands);
      return capture.result;
    } finally {
      if (db !== warm) db.destroy();
    }
  };
  const handlers = Object.fromEntries(FUNCTIONS.map((fn) => [fn, floor])) as Record<FunctionName, typeof floor>;
  const server = createApiServer(handlers, new RateLimiter([], 'api'));
  // Kept-alive connections stay open however long a section leaves them idle (a close would race a reuse).
  server.keepAliveTimeout = 0;
  const port = await listen(server, 0, 'exact floor');
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    // Renamed to the floor's table here, not in the request: the service does not rename.
    queue: (kind, commands, reply) =>
      queued.set(kind, [
        ...(queued.get(kind) ?? []),
        {
          commands: commands.map((sent) => ({ ...sent, input: retable(sent.input, from, to) as SentCommand['input'] })),
          result: resultOf(reply),
        },
      ]),
    pending: (kind) => queued.get(kind)?.length ?? 0,
  };
}
