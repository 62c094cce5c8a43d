import { useTestStack } from '../helpers/local';

/* serp_landscape on a large topic: no scan of the site, and DynamoDB requests that grow only by batched reads. */

const t = useTestStack();

/** A site with a topic of `count` committed keywords (and some ideas, which stay out), a page and SERP rows for half. */
async function topicOf(count: number) {
  const { siteId, key } = await t.newSite(`Topic of ${count}`, { domain: 'shoes.example.com', locale: 'US/en' });
  const rows = t.store.rows;
  const topic = await rows.insert(siteId, 'cm_topics', { name: `Topic of ${count}` });
  const now = new Date().toISOString();
  const keyword = (i: number) => ({
    keyword: `running shoes model ${i}`,
    locale: 'US/en',
    volume: 100 + i,
    cpc_usd: 1.5,
    competition: 0.3,
    intent: 'commercial',
    is_idea: false,
    page_id: null,
    checked_at: now,
    data_source: 'sandbox',
  });
  const { created } = await rows.insertMany(
    siteId,
    'cm_keywords',
    Array.from({ length: count }, (_v, i) => keyword(i)),
  );
  const ideas = await rows.insertMany(siteId, 'cm_keywords', [{ ...keyword(100_000), is_idea: true }]);
  await rows.insertMany(
    siteId,
    'cm_topic_keywords',
    [...created, ...ideas.created].map((row) => ({ topic_id: topic.id, keyword_id: row.id, score: 1 })),
  );
  await rows.insert(siteId, 'cm_pages', {
    title: 'Guide',
    topic_id: topic.id,
    primary_keyword: 'running shoes guide',
    secondary_keywords: ['running shoes model 1'],
  });
  for (const row of created.filter((_r, i) => i % 2 === 0)) {
    await t.store.serps.put(siteId, {
      keyword: String(row.keyword),
      locale: 'US/en',
      fetched_at: now,
      data_source: 'sandbox',
      items: [
        { position: 1, domain: 'rival.com', url: 'https://rival.com/a', title: 'A' },
        { position: 3, domain: 'www.shoes.example.com', url: 'https://www.shoes.example.com/a', title: 'B' },
      ],
    });
  }
  // The key is looked up once; later calls use the cached lookup, as a warm Lambda does.
  await t.call('GET', '/v1/tools', undefined, { key });
  return { key, topicId: topic.id };
}

async function measure(count: number) {
  const { key, topicId } = await topicOf(count);
  const recording = t.stack.dynamo.record();
  const reply = await t.call('POST', '/v1/tools/serp_landscape', { topic_id: topicId }, { key });
  recording.stop();
  expect(reply.status).toBe(200);
  return { reply, operations: recording.operations() };
}

it('answers a topic of 500 committed keywords without a scan, in requests that grow only by batched reads', async () => {
  const small = await measure(50);
  const large = await measure(500);

  expect(large.reply.body.coverage).toEqual({
    keywords: 501,
    with_volume: 500,
    with_serp: 250,
    volume_pct: 99.8,
    serp_pct: 49.9,
  });
  expect(large.reply.body.keywords[0]).toMatchObject({ keyword: 'running shoes model 499', serp: null });
  const own = large.reply.body.sov.domains.find((d: { is_site: boolean }) => d.is_site);
  expect(own.sov).toBeGreaterThan(0);
  expect(large.reply.body.sov.verdict).toBe('trails'); // rival.com holds position 1 wherever the site has 3

  for (const run of [small, large]) expect(run.operations.filter((op) => op === 'Scan')).toEqual([]);
  const count = (ops: string[], op: string) => ops.filter((o) => o === op).length;
  // 450 more keywords: 100 keys per BatchGetItem for keyword rows and for SERP rows, so at most 2 × 5 more.
  expect(count(large.operations, 'BatchGetItem') - count(small.operations, 'BatchGetItem')).toBeLessThanOrEqual(10);
  expect(count(large.operations, 'Query')).toBe(count(small.operations, 'Query'));
  expect(count(large.operations, 'GetItem')).toBe(count(small.operations, 'GetItem'));
  expect(large.operations.length).toBeLessThanOrEqual(25);
}, 120_000);
