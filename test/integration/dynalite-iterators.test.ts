import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable, startDynamo } from '@cm/local';
import { createDocumentClient } from '@cm/store';

/*
 * dynalite (the embedded engine) reads each Query through a LevelDB iterator. One left open keeps its
 * snapshot of the database for as long as the process lives: this is how the local stack's memory grew
 * without end under load. Every iterator a query opens is closed once its answer is sent.
 */

interface Resource {
  constructor: { name: string };
}
interface LevelPrototype {
  attachResource(resource: Resource): void;
  detachResource(resource: Resource): void;
}

/** abstract-level's database class as dynalite's storage loads it. */
function abstractLevel(): { prototype: LevelPrototype } {
  let from = require.resolve('dynalite');
  for (const name of ['level', 'classic-level']) from = createRequire(from).resolve(name);
  return (createRequire(from)('abstract-level') as { AbstractLevel: { prototype: LevelPrototype } }).AbstractLevel;
}

/** Iterators attached to any LevelDB database and not yet detached (closed). */
function openIterators() {
  const proto = abstractLevel().prototype;
  const open = new Set<Resource>();
  let opened = 0;
  const { attachResource, detachResource } = proto;
  proto.attachResource = function (resource) {
    if (/Iterator/.test(resource.constructor.name)) {
      open.add(resource);
      opened++;
    }
    return attachResource.call(this, resource);
  };
  proto.detachResource = function (resource) {
    open.delete(resource);
    return detachResource.call(this, resource);
  };
  return {
    count: () => open.size,
    opened: () => opened,
    restore: () => Object.assign(proto, { attachResource, detachResource }),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'cm-iterators-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it.each([
  ['in memory', undefined],
  ['on disk', join(dir, 'dynamodb')],
])(
  'closes every iterator its queries open, %s, whether a query reads to the end or stops at its Limit',
  async (_where, path) => {
    const dynamo = await startDynamo({ port: 0, engine: 'dynalite', path });
    const db = createDocumentClient({ endpoint: dynamo.endpoint });
    const iterators = openIterators();
    try {
      await ensureTable(dynamo.endpoint, 'iterators');
      for (let i = 0; i < 20; i++)
        await db.send(new PutCommand({ TableName: 'iterators', Item: { pk: 'P', sk: String(i).padStart(2, '0') } }));
      const query = (limit?: number) =>
        db.send(
          new QueryCommand({
            TableName: 'iterators',
            KeyConditionExpression: 'pk = :p',
            ExpressionAttributeValues: { ':p': 'P' },
            Limit: limit,
          }),
        );
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => query(i % 2 ? 5 : undefined)));
      expect(answers.map((answer) => answer.Count)).toEqual(Array.from({ length: 60 }, (_, i) => (i % 2 ? 5 : 20)));
      // A stream's iterator closes just after its answer is sent: wait for the closes, not for a time.
      for (let tries = 0; iterators.count() > 0 && tries < 200; tries++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(iterators.opened()).toBeGreaterThanOrEqual(60);
      expect(iterators.count()).toBe(0);
    } finally {
      iterators.restore();
      db.destroy();
      await dynamo.close();
    }
  },
);
