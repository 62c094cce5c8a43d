import { ensureTable } from '@cm/local';
import { forgetKeyLookups, resetServices } from '@cm/runtime';
import {
  comparable,
  FLOOR_KIND,
  FRESH_CLIENT,
  recordCommands,
  retable,
  startExactFloor,
  withoutServerHeaders,
  type CommandRecorder,
  type RecordedReply,
  type SentCommand,
} from '../../bench/exact-floor';
import { replyOf, send, type Answer } from '../../bench/latency';
import { article, startTestStack, warmKeyCheck, type TestStack } from '../helpers/local';

/*
 * The benchmark's exact floor (bench/exact-floor.ts) is only a floor of the service if it sends what the
 * service sends, and answers what the service answers: each case records the service's commands and
 * its reply for one operation, has the floor send them (asked as the service was, through the same local
 * server), and compares the two, command by command, the requests the embedded DynamoDB answered, and
 * the replies byte for byte (but the Date's value and the servers' Keep-Alive).
 */

const MIRROR = 'floor-mirror';
let recorder: CommandRecorder;
let t: TestStack;
let floor: Awaited<ReturnType<typeof startExactFloor>>;

beforeAll(async () => {
  recorder = recordCommands();
  t = await startTestStack();
  await ensureTable(t.stack.dynamo.endpoint, MIRROR);
  floor = await startExactFloor(recorder, t.stack.dynamo.endpoint, t.stack.tableName, MIRROR);
  // The mirror gets what the stack's start wrote (the demo site), so conditions and reads go the same way.
  await floorSends('setup', recorder.take(), UNTIMED, false);
});

afterAll(async () => {
  recorder.stop();
  floor.server.close();
  await t.stop();
});

/** The floor's answer to what the service did outside a case (set-up, the writes a case reads). */
const UNTIMED: RecordedReply = { status: 200, headers: [], body: Buffer.alloc(0) };

/**
 * Has the floor send `commands` and answer `reply`, asked as the service was (`call`: its method, path
 * and body; a bare GET when none): what it sent, named against the service's table again, and its answer.
 */
async function floorSends(kind: string, commands: SentCommand[], reply: RecordedReply, fresh: boolean, call?: Call) {
  recorder.takeFloor();
  floor.queue(kind, commands, reply);
  const headers = { [FLOOR_KIND]: kind, ...(fresh ? { [FRESH_CLIENT]: '1' } : {}) };
  const answer = await send(floor.url, call?.method ?? 'GET', call?.path ?? '/', call?.body, headers);
  const sent = recorder.takeFloor().map((command) => ({
    ...command,
    input: retable(command.input, MIRROR, t.stack.tableName) as SentCommand['input'],
  }));
  return { sent, answer };
}

/** A request to the service, as the bench sends it (the demo site's key unless `key`). */
interface Call {
  method: string;
  path: string;
  body?: unknown;
  key?: string | null;
}

/** The service's commands and reply for `call` (its queued work included), and the floor's for the same. */
async function bothSend(kind: string, call: Call, fresh = false) {
  await t.stack.drain();
  // What was written since (a site, a page the case reads), written to the mirror too.
  await floorSends('sync', recorder.take(), UNTIMED, false);
  const recording = t.stack.dynamo.record();
  const key = call.key === undefined ? t.key : call.key;
  const served = await send(t.stack.url, call.method, call.path, call.body, key ? { 'x-api-key': key } : {});
  await t.stack.drain();
  const service = recorder.take();
  const serviceOperations = recording.operations();
  recording.stop();
  const replayed = t.stack.dynamo.record();
  const floored = await floorSends(kind, service, replyOf(served), fresh, call);
  const floorOperations = replayed.operations();
  replayed.stop();
  return { service, served, floorCommands: floored.sent, floored: floored.answer, serviceOperations, floorOperations };
}

/** An answer as compared: its status, its headers but those each server writes itself, its bytes. */
const asCompared = (answer: Answer) => ({
  status: answer.status,
  headers: withoutServerHeaders(answer.headers),
  dated: answer.headers.some((entry, index) => index % 2 === 0 && entry === 'Date'),
  body: answer.body,
  bytes: answer.bytes.length,
});

const expectSame = (both: Awaited<ReturnType<typeof bothSend>>) => {
  expect(both.service.length).toBeGreaterThan(0);
  expect(comparable(both.floorCommands)).toEqual(comparable(both.service));
  expect(both.floorOperations).toEqual(both.serviceOperations);
  expect(asCompared(both.floored)).toEqual(asCompared(both.served));
  expect(both.floored.bytes.equals(both.served.bytes)).toBe(true);
};

test('a warm publish, replace and read: the floor sends the same command, item and expression and answers the same reply', async () => {
  await warmKeyCheck(t);
  const publish = await bothSend('publish', { method: 'POST', path: '/articles', body: article('floor-new') });
  expectSame(publish);
  expect(publish.served.status).toBe(201);
  const replace = await bothSend('replace', {
    method: 'POST',
    path: '/articles',
    body: article('floor-new', { title: 'Again' }),
  });
  expectSame(replace);
  expect(replace.served.status).toBe(200);
  const { body } = await t.call('POST', '/articles', article('floor-read'));
  const read = await bothSend('read', { method: 'GET', path: `/articles/${body.id}` });
  expectSame(read);
  expect(read.served.status).toBe(200);
});

test('cold, on a fresh client: a publish checks its key first, a visitor page reads its site and page at once', async () => {
  const site = await t.newSite('Floor site');
  await t.call('POST', '/articles', article('floor-visit'), { key: site.key });
  forgetKeyLookups();
  resetServices();
  const cold = await bothSend(
    'cold-publish',
    { method: 'POST', path: '/articles', body: article('floor-cold'), key: site.key },
    true,
  );
  expectSame(cold);
  // The key's lookup first, then the write.
  expect(cold.service.length).toBeGreaterThan(1);
  const visit = await bothSend(
    'visitor',
    { method: 'GET', path: `/sites/${site.siteId}/articles/floor-visit`, key: null },
    true,
  );
  expectSame(visit);
  // A page, with the headers a page carries: the floor answers them too.
  expect(visit.served.status).toBe(200);
  expect(visit.served.body).toContain('<html');
  expect(withoutServerHeaders(visit.served.headers).map((entry) => entry.toLowerCase())).toContain(
    'content-security-policy',
  );
  // The site and the page are read at once: the floor keeps them at once too.
  expect(visit.service.some((sent, index) => sent.after.length < index)).toBe(true);
});

test('retable renames the table where a command names it, never inside an item', () => {
  const input = {
    TableName: 'a',
    Item: { TableName: 'a' },
    RequestItems: { a: [{ PutRequest: { Item: { TableName: 'a' } } }] },
  };
  expect(retable(input, 'a', 'b')).toEqual({
    TableName: 'b',
    Item: { TableName: 'a' },
    RequestItems: { b: [{ PutRequest: { Item: { TableName: 'a' } } }] },
  });
});

test('the floor is asked through the local API server, as the service is: what that server answers, it answers alike', async () => {
  // A path parameter that is no percent-encoding is refused by the server before any handler runs.
  const path = '/articles/%E0%A4%A';
  const [served, floored] = await Promise.all([
    send(t.stack.url, 'GET', path, undefined, { 'x-api-key': t.key }),
    send(floor.url, 'GET', path, undefined, { [FLOOR_KIND]: 'refused' }),
  ]);
  expect(served.status).toBe(400);
  expect(asCompared(floored)).toEqual(asCompared(served));
});
