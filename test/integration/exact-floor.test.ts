import { ensureTable } from '@cm/local';
import { forgetKeyLookups, resetServices } from '@cm/runtime';
import {
  comparable,
  recordCommands,
  retable,
  startExactFloor,
  type CommandRecorder,
  type SentCommand,
} from '../../bench/exact-floor';
import { article, startTestStack, warmKeyCheck, type TestStack } from '../helpers/local';

/*
 * The benchmark's exact floor (bench/exact-floor.ts) is only a floor of the service if it sends what the
 * service sends: each case records the service's commands for one operation, has the floor send them,
 * and compares the two, command by command, and the requests the embedded DynamoDB answered.
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
  await floorSends('setup', recorder.take(), false);
});

afterAll(async () => {
  recorder.stop();
  floor.server.close();
  await t.stop();
});

/** Has the floor send `commands`; what it sent, named against the service's table again. */
async function floorSends(kind: string, commands: SentCommand[], fresh: boolean): Promise<SentCommand[]> {
  recorder.takeFloor();
  floor.queue(kind, commands);
  const res = await fetch(`${floor.url}/${kind}`, { headers: fresh ? { 'x-fresh-client': '1' } : {} });
  expect([res.status, res.status === 200 ? '' : await res.text()]).toEqual([200, '']);
  return recorder
    .takeFloor()
    .map((sent) => ({ ...sent, input: retable(sent.input, MIRROR, t.stack.tableName) as SentCommand['input'] }));
}

/** The service's commands for `run` (its queued work included), and the floor's for the same. */
async function bothSend(kind: string, run: () => Promise<unknown>, fresh = false) {
  await t.stack.drain();
  // What was written since (a site, a page the case reads), written to the mirror too.
  await floorSends('sync', recorder.take(), false);
  const recording = t.stack.dynamo.record();
  await run();
  await t.stack.drain();
  const service = recorder.take();
  const serviceOperations = recording.operations();
  recording.stop();
  const replayed = t.stack.dynamo.record();
  const floorCommands = await floorSends(kind, service, fresh);
  const floorOperations = replayed.operations();
  replayed.stop();
  return { service, floorCommands, serviceOperations, floorOperations };
}

const expectSame = (both: Awaited<ReturnType<typeof bothSend>>) => {
  expect(both.service.length).toBeGreaterThan(0);
  expect(comparable(both.floorCommands)).toEqual(comparable(both.service));
  expect(both.floorOperations).toEqual(both.serviceOperations);
};

test('a warm publish, replace and read: the floor sends the same command, item and expression', async () => {
  await warmKeyCheck(t);
  const publish = await bothSend('publish', () => t.call('POST', '/articles', article('floor-new')));
  expectSame(publish);
  const replace = await bothSend('replace', () =>
    t.call('POST', '/articles', article('floor-new', { title: 'Again' })),
  );
  expectSame(replace);
  const { body } = await t.call('POST', '/articles', article('floor-read'));
  const read = await bothSend('read', () => t.call('GET', `/articles/${body.id}`));
  expectSame(read);
});

test('cold, on a fresh client: a publish checks its key first, a visitor page reads its site and page at once', async () => {
  const site = await t.newSite('Floor site');
  await t.call('POST', '/articles', article('floor-visit'), { key: site.key });
  forgetKeyLookups();
  resetServices();
  const cold = await bothSend(
    'cold-publish',
    () => t.call('POST', '/articles', article('floor-cold'), { key: site.key }),
    true,
  );
  expectSame(cold);
  // The key's lookup first, then the write.
  expect(cold.service.length).toBeGreaterThan(1);
  const visit = await bothSend(
    'visitor',
    () => t.call('GET', `/sites/${site.siteId}/articles/floor-visit`, undefined, { key: null }),
    true,
  );
  expectSame(visit);
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
