import { LIMITS, TOOL_LIST } from '@cm/contract';
import { keywordScore, nextUtcMidnight } from '@cm/core';
import { apiClient, given, type ToolArgs } from '../helpers/client';
import { useTestStack } from '../helpers/local';
import { fakeClock } from '../helpers/clock';

const t = useTestStack();

/** A fresh site for a test, so each starts with empty tables, sequences, quota and ledger. */
async function site(options: { domain?: string; locale?: string } = {}) {
  const created = await t.newSite('Tools site', { domain: 'shoes.example.com', locale: 'US/en', ...options });
  return { ...created, client: apiClient(t, created.key) };
}

type Site = Awaited<ReturnType<typeof site>>;

/** What a JSON Schema holds at `path` (the listing types input_schema as a record of unknowns). */
const at = (schema: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>(
    (value, step) => (typeof value === 'object' && value !== null ? Reflect.get(value, step) : undefined),
    schema,
  );

const insert = async (s: Site, table: ToolArgs<'db_insert'>['table'], row: Record<string, unknown>) =>
  (await s.client.tool('db_insert', { table, row })).body.row;

describe('tool surface', () => {
  it('lists every tool with its description and a JSON Schema of its parameters', async () => {
    const reply = await apiClient(t).route('GET /v1/tools');
    expect(reply.status).toBe(200);
    expect(reply.body.map((tool) => tool.name)).toEqual(TOOL_LIST.map((tool) => tool.name));
    for (const tool of reply.body) {
      expect(tool.description.length).toBeGreaterThan(40);
      expect(tool.input_schema).toMatchObject({ type: 'object' });
    }
    const landscape = given(
      reply.body.find((tool) => tool.name === 'serp_landscape'),
      'serp_landscape',
    );
    expect(landscape.input_schema).toMatchObject({
      properties: { depth: { enum: ['metrics', 'list', 'analyze'], default: 'metrics' } },
    });
    const keywords = given(
      reply.body.find((tool) => tool.name === 'get_keywords'),
      'get_keywords',
    );
    expect(keywords.input_schema).toMatchObject({ properties: { seeds: { type: 'array', maxItems: 200 } } });
  });

  it('describes the counts the spec types as number as taking a number or a numeric string, with their bounds', async () => {
    const reply = await apiClient(t).route('GET /v1/tools');
    const backlinks = given(
      reply.body.find((tool) => tool.name === 'serp_backlinks'),
      'serp_backlinks',
    );
    const numberOrString = { anyOf: [{ type: 'number' }, { type: 'string', pattern: expect.any(String) }] };
    // Either one, or null (taken as left out).
    expect(backlinks.input_schema).toMatchObject({
      properties: {
        trend_months: { anyOf: [{ ...numberOrString, minimum: 1, maximum: 36 }, { type: 'null' }], default: 18 },
        limit: { anyOf: [{ ...numberOrString, minimum: 1, maximum: 1000 }, { type: 'null' }] },
      },
    });
    const pattern = new RegExp(
      String(at(backlinks.input_schema, 'properties', 'trend_months', 'anyOf', 0, 'anyOf', 1, 'pattern')),
    );
    expect(['12', '12.7', '-3', '0.5'].every((v) => pattern.test(v))).toBe(true);
    expect(['abc', '', '1e3', '12px'].some((v) => pattern.test(v))).toBe(false);
  });

  it('answers 404 unknown_tool for a name that is no tool, after checking the key', async () => {
    const client = apiClient(t);
    const reply = await client.routeError('POST /v1/tools/research_everything', { body: {} });
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ error: 'unknown_tool', code: 'unknown_tool' });
    expect((await client.routeError('POST /v1/tools/research_everything', { body: {}, key: null })).status).toBe(401);
    expect((await client.routeError('GET /v1/tools', { key: 'cmk_wrong' })).status).toBe(401);
    expect((await client.toolError('db_select', { table: 'cm_topics' }, { key: null })).status).toBe(401);
  });

  it('answers bad input in the one error shape, and ignores unknown fields', async () => {
    const s = await site();
    const notJson = await s.client.toolError('db_select', '{"table":');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toBe('invalid_json');
    const missing = await s.client.toolError('db_select', {});
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      error: 'validation_failed',
      issues: [{ path: 'table', message: 'Required' }],
    });
    const extra = await s.client.tool('db_insert', {
      table: 'cm_topics',
      row: { name: 'Shoes', colour: 'red' },
      dry_run: true,
    });
    expect(extra.status).toBe(200);
    expect(extra.body.row).toEqual({
      id: 1,
      name: 'Shoes',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });
});

describe('db tools', () => {
  it('gives integer ids from a per-site sequence, distinct under concurrent inserts', async () => {
    const a = await site();
    const b = await site();
    expect((await insert(a, 'cm_topics', { name: 'One' })).id).toBe(1);
    expect((await insert(a, 'cm_topics', { name: 'Two' })).id).toBe(2);
    expect((await insert(b, 'cm_topics', { name: 'Other site' })).id).toBe(1);
    const concurrent = await Promise.all(
      Array.from({ length: 12 }, (_v, i) => insert(a, 'cm_topics', { name: `T${i}` })),
    );
    expect(concurrent.map((row) => row.id).sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_v, i) => i + 3));
    expect((await insert(a, 'cm_pages', { title: 'First page' })).id).toBe(1); // each table its own sequence
  });

  it('selects by field with a limit and a cursor, in id order', async () => {
    const s = await site();
    const topic = await insert(s, 'cm_topics', { name: 'Trail' });
    for (let i = 1; i <= 5; i++)
      await insert(s, 'cm_pages', { title: `Page ${i}`, topic_id: topic.id, secondary_keywords: [] });
    await insert(s, 'cm_pages', { title: 'Elsewhere' });
    const titles: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await s.client.tool('db_select', {
        table: 'cm_pages',
        where: { topic_id: topic.id },
        limit: 2,
        cursor,
      });
      expect(page.status).toBe(200);
      expect(page.body.rows.length).toBeLessThanOrEqual(2);
      titles.push(...page.body.rows.map((row) => row.title));
      cursor = page.body.next_cursor ?? undefined;
    } while (cursor);
    expect(titles).toEqual(['Page 1', 'Page 2', 'Page 3', 'Page 4', 'Page 5']);

    const unindexed = await s.client.tool('db_select', { table: 'cm_pages', where: { title: 'Elsewhere' } });
    expect(unindexed.body.rows.map((row) => row.id)).toEqual([6]);
    const byId = await s.client.tool('db_select', { table: 'cm_pages', where: { id: 3 } });
    expect(byId.body).toMatchObject({ data_source: 'database', rows: [{ id: 3, title: 'Page 3' }], next_cursor: null });
    const unknown = await s.client.toolError('db_select', { table: 'cm_pages', where: { colour: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.issues?.[0]?.path).toBe('where.colour');
    const badCursor = await s.client.toolError('db_select', { table: 'cm_pages', cursor: 'bm90IGEgY3Vyc29y' });
    expect(badCursor.status).toBe(400);
  });

  it('validates rows with the table schema, and an unknown table is a 400', async () => {
    const s = await site();
    const table = await s.client.toolError('db_insert', { table: 'cm_secrets', row: { name: 'x' } });
    expect(table.status).toBe(400);
    expect(table.body.issues?.[0]?.path).toBe('table');
    const missing = await s.client.toolError('db_insert', { table: 'cm_topics', row: {} });
    expect(missing.body.issues).toEqual([{ path: 'row.name', message: 'Required' }]);
    const color = await s.client.toolError('db_insert', {
      table: 'cm_competitors',
      row: { domain: 'rival.com', color: 'red' },
    });
    expect(color.status).toBe(400);
    expect(color.body.issues?.[0]?.path).toBe('row.color');
    const competition = await s.client.toolError('db_insert', {
      table: 'cm_keywords',
      row: { keyword: 'shoes', competition: 1.5 },
    });
    expect(competition.body.issues?.[0]?.path).toBe('row.competition');
    const reference = await s.client.toolError('db_insert', {
      table: 'cm_topic_keywords',
      row: { topic_id: 99, keyword_id: 1 },
    });
    expect(reference.status).toBe(400);
    expect(reference.body.issues?.[0]?.path).toBe('row.topic_id');
  });

  it('keeps cm_keywords unique per (locale, keyword), normalized', async () => {
    const s = await site();
    const first = await insert(s, 'cm_keywords', { keyword: '  Running   Shoes ' });
    expect(first).toMatchObject({
      keyword: 'running shoes',
      locale: 'US/en',
      is_idea: false,
      volume: null,
      data_source: 'caller',
    });
    const again = await s.client.toolError('db_insert', { table: 'cm_keywords', row: { keyword: 'running shoes' } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'already_exists', table: 'cm_keywords', id: first.id });
    // Another locale is another keyword (ids have gaps where an insert lost its unique value).
    expect((await insert(s, 'cm_keywords', { keyword: 'running shoes', locale: 'GB/en' })).id).toBeGreaterThan(
      first.id,
    );
    // Raw calls: which of the racing inserts is answered, and which refused, is the race's.
    const racing = await Promise.all(
      Array.from({ length: 6 }, () =>
        t.call<unknown>(
          'POST',
          '/v1/tools/db_insert',
          { table: 'cm_keywords', row: { keyword: 'trail shoes' } },
          { key: s.key },
        ),
      ),
    );
    expect(racing.filter((r) => r.status === 200)).toHaveLength(1);
    expect(racing.filter((r) => r.status === 409)).toHaveLength(5);
  });

  it('normalizes a competitor domain and warns that add_competitor is the way', async () => {
    const s = await site();
    const reply = await s.client.tool('db_insert', {
      table: 'cm_competitors',
      row: { domain: 'https://www.Rival-Shoes.com:443/path?q=1', color: '#aa3300' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.row).toMatchObject({
      domain: 'rival-shoes.com',
      color: '#aa3300',
      active: true,
      added_at: expect.any(String),
    });
    expect(reply.body.warnings[0]).toContain('add_competitor');
    const bad = await s.client.toolError('db_insert', { table: 'cm_competitors', row: { domain: 'not a domain' } });
    expect(bad.status).toBe(400);
  });

  it('deletes by id, with the links of a keyword, and 404 for a row that is not there', async () => {
    const s = await site();
    const topic = await insert(s, 'cm_topics', { name: 'Shoes' });
    const keyword = await insert(s, 'cm_keywords', { keyword: 'shoes' });
    const other = await insert(s, 'cm_keywords', { keyword: 'boots' });
    await insert(s, 'cm_topic_keywords', { topic_id: topic.id, keyword_id: keyword.id });
    await insert(s, 'cm_topic_keywords', { topic_id: topic.id, keyword_id: other.id });
    const deleted = await s.client.tool('db_delete', { table: 'cm_keywords', id: keyword.id });
    expect(deleted.body).toMatchObject({
      table: 'cm_keywords',
      id: keyword.id,
      deleted: true,
      cascaded: { cm_topic_keywords: 1 },
    });
    const links = await s.client.tool('db_select', { table: 'cm_topic_keywords', where: { topic_id: topic.id } });
    expect(links.body.rows.map((row) => row.keyword_id)).toEqual([other.id]);
    const again = await s.client.toolError('db_delete', { table: 'cm_keywords', id: keyword.id });
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('not_found');
    // Its (locale, keyword) is free again.
    expect((await s.client.tool('db_insert', { table: 'cm_keywords', row: { keyword: 'shoes' } })).status).toBe(200);
  });

  it('selects by an indexed field a value of any length: none has it, and the longest storable is found', async () => {
    const s = await site();
    const longest = '😀'.repeat(32);
    const stored = await insert(s, 'cm_pages', { title: 'Page', published_id: longest });
    const select = (published_id: string) => s.client.tool('db_select', { table: 'cm_pages', where: { published_id } });
    expect((await select(longest)).body.rows).toEqual([stored]);
    const long = await select('😀'.repeat(1000));
    expect([long.status, long.body.rows]).toEqual([200, []]);
  });

  it("scopes every row to the key's site", async () => {
    const a = await site();
    const b = await site();
    const secret = await insert(a, 'cm_topics', { name: 'A only' });
    await insert(a, 'cm_keywords', { keyword: 'a only keyword' });
    expect((await b.client.tool('db_select', { table: 'cm_topics' })).body.rows).toEqual([]);
    expect((await b.client.tool('db_select', { table: 'cm_topics', where: { id: secret.id } })).body.rows).toEqual([]);
    expect(
      (await b.client.tool('db_select', { table: 'cm_keywords', where: { keyword: 'a only keyword' } })).body.rows,
    ).toEqual([]);
    expect((await b.client.toolError('db_delete', { table: 'cm_topics', id: secret.id })).status).toBe(404);
    await insert(a, 'cm_topics', { name: 'A second' });
    const cursorOfA = (await a.client.tool('db_select', { table: 'cm_topics', limit: 1 })).body.next_cursor;
    expect(cursorOfA).toEqual(expect.any(String));
    expect(
      (await b.client.tool('db_select', { table: 'cm_topics', cursor: given(cursorOfA, 'the cursor of A') })).body.rows,
    ).toEqual([]);
    expect((await a.client.tool('db_select', { table: 'cm_topics' })).body.rows).toHaveLength(2);
  });
});

describe('get_keywords', () => {
  it('reports a seed that is not a keyword per seed and pulls the others (audit: one seed too long)', async () => {
    const s = await site();
    const long = `running shoes ${'x'.repeat(100)}`;
    const reply = await s.client.tool('get_keywords', { seeds: ['running shoes', long, '   ', 'trail shoes'] });
    expect(reply.status).toBe(200);
    expect(reply.body.keywords.map((row) => row.keyword).sort()).toEqual(['running shoes', 'trail shoes']);
    expect(reply.body.rejected_seeds).toEqual([
      { seed: long, reason: expect.stringContaining('80') },
      { seed: '   ', reason: expect.any(String) },
    ]);
    // A topic's seeds the same way; with nothing left to pull the call says why for each seed.
    const topic = await insert(s, 'cm_topics', { name: 'Shoes' });
    const scoped = await s.client.tool('get_keywords', { topic_id: topic.id, seeds: [long, 'road shoes'] });
    expect([scoped.status, scoped.body.attached, scoped.body.rejected_seeds.length]).toEqual([200, 1, 1]);
    const none = await s.client.toolError('get_keywords', { seeds: [long] });
    expect(none.status).toBe(400);
    expect(none.body.issues).toEqual([{ path: 'seeds[0]', message: expect.stringContaining('80') }]);
    expect((await s.client.toolError('get_keywords', { seeds: [7] })).status).toBe(400);
  });

  it('pulls metrics for seeds, upserts them, and the same keyword always gets the same numbers', async () => {
    const s = await site();
    const first = await s.client.tool('get_keywords', { seeds: ['Running Shoes', 'best trail running shoes'] });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      data_source: 'sandbox',
      locale: 'US/en',
      no_data: [],
      rejected_seeds: [],
      topic_id: null,
      attached: 0,
    });
    for (const row of first.body.keywords) {
      expect(row.volume).toBeGreaterThanOrEqual(10);
      expect(row.cpc_usd).toBeGreaterThanOrEqual(0);
      expect(row.competition).toBeGreaterThanOrEqual(0);
      expect(row.competition).toBeLessThanOrEqual(1);
      expect(['informational', 'navigational', 'commercial', 'transactional']).toContain(row.intent);
      expect(row).toMatchObject({
        locale: 'US/en',
        is_idea: false,
        data_source: 'sandbox',
        checked_at: expect.any(String),
      });
    }
    const again = await s.client.tool('get_keywords', { seeds: ['running shoes'] });
    const before = given(
      first.body.keywords.find((row) => row.keyword === 'running shoes'),
      'running shoes',
    );
    expect(again.body.keywords).toEqual([
      { ...before, checked_at: expect.any(String), updated_at: expect.any(String) },
    ]);
    const stored = await s.client.tool('db_select', { table: 'cm_keywords' });
    expect(stored.body.rows).toHaveLength(2);

    const elsewhere = await site();
    const same = await elsewhere.client.tool('get_keywords', { seeds: ['running shoes'] });
    expect(same.body.keywords[0]).toMatchObject({
      volume: before.volume,
      cpc_usd: before.cpc_usd,
      competition: before.competition,
      intent: before.intent,
    });
  });

  it("uses the keyword row's locale, else the site's, else WW/en", async () => {
    const worldwide = await site({ locale: undefined });
    expect((await worldwide.client.tool('get_keywords', { seeds: ['trail shoes'] })).body.locale).toBe('WW/en');
    const s = await site();
    const british = await insert(s, 'cm_keywords', { keyword: 'trainers', locale: 'GB/en' });
    const reply = await s.client.tool('get_keywords', { keyword_id: british.id, seeds: ['running trainers'] });
    expect(reply.body.locale).toBe('GB/en');
    expect(reply.body.keywords.map((row) => [row.keyword, row.locale]).sort()).toEqual([
      ['running trainers', 'GB/en'],
      ['trainers', 'GB/en'],
    ]);
    const refreshed = given(
      reply.body.keywords.find((row) => row.id === british.id),
      'the trainers row',
    );
    expect(refreshed.volume).toBeGreaterThan(0);
    expect(refreshed.data_source).toBe('sandbox');
    expect((await s.client.tool('get_keywords', { seeds: ['trainers'] })).body.keywords[0]?.locale).toBe('US/en');
  });

  it('stores a seed without data as volume 0 with topic_id or keyword_id, lists it in no_data, and does not fetch it again', async () => {
    const s = await site();
    const nothing = 'supercalifragilisticexpialidocious shoes';
    const unscoped = await s.client.tool('get_keywords', { seeds: [nothing] });
    expect(unscoped.body.no_data).toEqual([nothing]);
    expect(unscoped.body.keywords).toEqual([]);
    expect((await s.client.tool('db_select', { table: 'cm_keywords' })).body.rows).toEqual([]);

    const topic = await insert(s, 'cm_topics', { name: 'Shoes' });
    const scoped = await s.client.tool('get_keywords', { topic_id: topic.id, seeds: [nothing, 'trail shoes'] });
    expect(scoped.body.no_data).toEqual([nothing]);
    const empty = given(
      scoped.body.keywords.find((row) => row.keyword === nothing),
      'the keyword without data',
    );
    expect(empty).toMatchObject({
      volume: 0,
      cpc_usd: null,
      competition: null,
      intent: null,
      checked_at: expect.any(String),
    });
    expect(scoped.body.attached).toBe(2);

    const pull = await s.client.tool('get_keywords', { topic_id: topic.id });
    expect(pull.body.no_data).toEqual([nothing]);
    const unchanged = given(
      pull.body.keywords.find((row) => row.keyword === nothing),
      'the keyword without data',
    );
    expect(unchanged.checked_at).toBe(empty.checked_at);
    expect(pull.body.attached).toBe(0);
    const links = await s.client.tool('db_select', { table: 'cm_topic_keywords', where: { topic_id: topic.id } });
    expect(links.body.rows).toHaveLength(2);
    const trail = given(
      pull.body.keywords.find((row) => row.keyword === 'trail shoes'),
      'trail shoes',
    );
    expect(links.body.rows.find((row) => row.keyword_id === trail.id)?.score).toBe(keywordScore(trail));
  });

  it('does not pull a keyword checked with no data again however it is named, until the check is 30 days old', async () => {
    const s = await site();
    const nothing = 'supercalifragilisticexpialidocious boots';
    const topic = await insert(s, 'cm_topics', { name: 'Boots' });
    const first = await s.client.tool('get_keywords', { topic_id: topic.id, seeds: [nothing] });
    const empty = given(first.body.keywords[0], 'the keyword without data');
    const checkedAt = given(empty.checked_at, 'when it was checked');
    const calls = (await s.client.route('GET /v1/usage')).body.calls;

    // By its keyword_id, as a seed with and without a topic, and under another topic: from storage, no call.
    const other = await insert(s, 'cm_topics', { name: 'More boots' });
    for (const input of [
      { keyword_id: empty.id },
      { seeds: [nothing] },
      { topic_id: topic.id, seeds: [nothing] },
      { topic_id: other.id, seeds: [nothing] },
    ]) {
      const reply = await s.client.tool('get_keywords', input);
      expect([reply.status, reply.body.no_data, reply.body.keywords]).toEqual([200, [nothing], [empty]]);
    }
    expect((await s.client.route('GET /v1/usage')).body.calls).toBe(calls);
    // Named under another topic it is attached there all the same.
    const links = await s.client.tool('db_select', { table: 'cm_topic_keywords', where: { keyword_id: empty.id } });
    expect(links.body.rows.map((row) => row.topic_id).sort()).toEqual([topic.id, other.id]);

    // Attaching commits a keyword stored as an idea, without pulling it.
    const idea = await insert(s, 'cm_keywords', {
      keyword: 'zzqx boots',
      volume: 0,
      is_idea: true,
      checked_at: checkedAt,
    });
    const committed = await s.client.tool('get_keywords', { topic_id: other.id, seeds: ['zzqx boots'] });
    expect(committed.body.keywords.find((row) => row.id === idea.id)).toMatchObject({
      is_idea: false,
      volume: 0,
    });
    expect((await s.client.route('GET /v1/usage')).body.calls).toBe(calls);

    // A month on, the data may have some: the keyword is checked again.
    fakeClock(Date.parse(checkedAt) + LIMITS.noDataRecheckDays * 86_400_000);
    try {
      const again = await s.client.tool('get_keywords', { keyword_id: empty.id });
      expect(again.body.no_data).toEqual([nothing]);
      expect(given(again.body.keywords[0]?.checked_at, 'when it was checked again') > checkedAt).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it("pulls a topic's keywords: its links and its pages' keywords", async () => {
    const s = await site();
    const topic = await insert(s, 'cm_topics', { name: 'Running' });
    await insert(s, 'cm_pages', {
      title: 'Guide',
      topic_id: topic.id,
      primary_keyword: 'running guide',
      secondary_keywords: ['running tips'],
    });
    const pulled = await s.client.tool('get_keywords', { topic_id: topic.id });
    expect(pulled.body.keywords.map((row) => row.keyword).sort()).toEqual(['running guide', 'running tips']);
    expect(pulled.body.attached).toBe(0);
  });

  it('answers 404 for a topic or keyword row the site does not have, and 400 with nothing to pull', async () => {
    const s = await site();
    expect((await s.client.toolError('get_keywords', { topic_id: 42 })).status).toBe(404);
    expect((await s.client.toolError('get_keywords', { keyword_id: 42 })).status).toBe(404);
    const none = await s.client.toolError('get_keywords', {});
    expect(none.status).toBe(400);
    expect(none.body.message).toContain('seeds, topic_id or keyword_id');
    const long = await s.client.toolError('get_keywords', {
      seeds: ['one two three four five six seven eight nine ten eleven'],
    });
    expect(long.status).toBe(400);
    expect(long.body.issues?.[0]?.path).toBe('seeds[0]');
  });
});

/** A topic with committed keywords attached through get_keywords. */
async function topicWith(s: Site, seeds: string[]) {
  const topic = await insert(s, 'cm_topics', { name: 'Topic' });
  const pulled = await s.client.tool('get_keywords', { topic_id: topic.id, seeds });
  return { topic, keywords: pulled.body.keywords };
}

const TWELVE = [
  'running shoes',
  'trail running shoes',
  'best running shoes',
  'running shoes for women',
  'cheap running shoes',
  'running shoes review',
  'marathon shoes',
  'buy running shoes',
  'running socks',
  'running shorts',
  'running watch',
  'running jacket',
];

describe('serp_landscape', () => {
  it('takes exactly one of keyword, topic_id, page_id', async () => {
    const s = await site();
    for (const body of [{}, { keyword: 'shoes', topic_id: 1 }, { topic_id: 1, page_id: 1 }]) {
      const reply = await s.client.toolError('serp_landscape', body);
      expect(reply.status).toBe(400);
      expect(reply.body.message).toContain('exactly one of keyword, topic_id, page_id');
    }
    expect(
      (await s.client.toolError('serp_landscape', { keyword: 'shoes', depth: 'list', ideas: true })).body.issues?.[0]
        ?.path,
    ).toBe('ideas');
    expect(
      (await s.client.toolError('serp_landscape', { page_id: 1, depth: 'list', keyword_ids: [1] })).body.issues?.[0]
        ?.path,
    ).toBe('keyword_ids');
    expect((await s.client.toolError('serp_landscape', { topic_id: 99 })).status).toBe(404);
  });

  it('reports metrics read-only: demand, coverage, and no SERP data before a list', async () => {
    const s = await site();
    const { topic } = await topicWith(s, ['running shoes', 'trail running shoes']);
    const calls = (await s.client.route('GET /v1/usage')).body.calls;
    const reply = await s.client.tool('serp_landscape', { topic_id: topic.id });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      data_source: 'sandbox',
      cached: true,
      cost_usd: 0,
      scope: { type: 'topic', id: topic.id, name: 'Topic' },
      depth: 'metrics',
      coverage: { keywords: 2, with_volume: 2, with_serp: 0, volume_pct: 100, serp_pct: 0 },
    });
    expect(reply.body.keywords.every((k) => k.serp === null)).toBe(true);
    expect(reply.body.sov.verdict).toBeNull();
    expect((await s.client.route('GET /v1/usage')).body.calls).toBe(calls); // no provider call
  });

  it('suppresses the verdict below 50% volume coverage, and gives one at or above it', async () => {
    const s = await site();
    const nothing = ['qwertyuiopasdfghjkl shoes', 'zxcvbnmlkjhgfdsapoiu shoes'];
    const { topic } = await topicWith(s, ['running shoes', ...nothing]);
    await s.client.tool('serp_landscape', { topic_id: topic.id, depth: 'list' });
    const below = await s.client.tool('serp_landscape', { topic_id: topic.id });
    expect(below.body.coverage).toMatchObject({ keywords: 3, with_volume: 1, with_serp: 3, volume_pct: 33.3 });
    expect(below.body.sov.verdict).toBeNull();
    expect(below.body.sov.verdict_reason).toContain('below the 50%');

    await s.client.tool('get_keywords', { topic_id: topic.id, seeds: ['trail running shoes'] });
    await s.client.tool('serp_landscape', { topic_id: topic.id, depth: 'list' });
    const atHalf = await s.client.tool('serp_landscape', { topic_id: topic.id });
    expect(atHalf.body.coverage).toMatchObject({ keywords: 4, with_volume: 2, volume_pct: 50 });
    expect(['leads', 'contends', 'trails', null]).toContain(atHalf.body.sov.verdict);
    expect(atHalf.body.sov.verdict_reason).not.toContain('below the 50%');
    const own = given(
      atHalf.body.sov.domains.find((d) => d.is_site),
      "the site's own domain",
    );
    expect(own.domain).toBe('shoes.example.com');
    for (const d of atHalf.body.sov.domains) {
      expect(d.sov).toBeGreaterThanOrEqual(0);
      expect(d.sov).toBeLessThanOrEqual(1);
    }
  });

  it('lists the top 10 keywords of a topic by score, skips the ones already fetched, and takes limit or keyword_ids', async () => {
    const s = await site();
    const { topic, keywords } = await topicWith(s, TWELVE);
    const top10 = [...keywords]
      .sort((a, b) => keywordScore(b) - keywordScore(a))
      .slice(0, 10)
      .map((k) => k.keyword);
    const list = await s.client.tool('serp_landscape', { topic_id: topic.id, depth: 'list' });
    expect(list.status).toBe(200);
    const listed = given(list.body.list, 'the list');
    expect(listed.fetched.sort()).toEqual([...top10].sort());
    expect(listed.skipped).toEqual([]);
    expect(list.body.cached).toBe(false);
    expect(list.body.coverage.with_serp).toBe(10);
    const withSerp = given(list.body.keywords.find((k) => k.serp !== null)?.serp, 'a SERP');
    expect(withSerp).toMatchObject({ data_source: 'sandbox', fetched_at: expect.any(String) });
    expect(withSerp.top_domains.length).toBeGreaterThan(0);

    const repeat = await s.client.tool('serp_landscape', { topic_id: topic.id, depth: 'list' });
    expect(repeat.body.list).toEqual({ fetched: [], skipped: expect.any(Array), failed: [] });
    expect(given(repeat.body.list, 'the list').skipped).toHaveLength(10);
    expect(repeat.body.cached).toBe(true);

    const rest = keywords.filter((k) => !top10.includes(k.keyword));
    const explicit = await s.client.tool('serp_landscape', {
      topic_id: topic.id,
      depth: 'list',
      keyword_ids: rest.map((k) => k.id),
    });
    expect(given(explicit.body.list, 'the list').fetched.sort()).toEqual(rest.map((k) => k.keyword).sort());

    const other = await topicWith(s, ['running gloves', 'running hat', 'running belt']);
    const limited = await s.client.tool('serp_landscape', { topic_id: other.topic.id, depth: 'list', limit: 1 });
    expect(given(limited.body.list, 'the list').fetched).toHaveLength(1);
  });

  it('pulls up to 100 ideas with ideas: true, stores them as ideas, and never lists them', async () => {
    const s = await site();
    const { topic } = await topicWith(s, ['running shoes', 'trail running shoes']);
    const reply = await s.client.tool('serp_landscape', { topic_id: topic.id, ideas: true });
    expect(reply.status).toBe(200);
    const ideas = given(reply.body.ideas, 'the ideas');
    expect(ideas.length).toBeGreaterThan(10);
    expect(ideas.length).toBeLessThanOrEqual(100);
    expect(ideas.every((idea) => idea.is_idea)).toBe(true);
    expect(reply.body.coverage.keywords).toBe(2); // ideas are not committed keywords
    const stored = await s.client.tool('db_select', { table: 'cm_keywords', where: { is_idea: true }, limit: 200 });
    expect(stored.body.rows).toHaveLength(ideas.length);

    const list = await s.client.tool('serp_landscape', { topic_id: topic.id, depth: 'list', limit: 100 });
    expect(given(list.body.list, 'the list').fetched.sort()).toEqual(['running shoes', 'trail running shoes']);
    const idea = given(ideas[0], 'an idea');
    const refused = await s.client.toolError('serp_landscape', {
      topic_id: topic.id,
      depth: 'list',
      keyword_ids: [idea.id],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('ideas are never list targets');
  });

  it('refuses list and analyze of a keyword known only as an idea, saying how to commit it; metrics still shows it', async () => {
    const s = await site();
    const idea = await insert(s, 'cm_keywords', { keyword: 'carbon plate shoes', is_idea: true });
    const queued = t.stack.queues.research.sent;
    for (const depth of ['list', 'analyze'] as const) {
      const refused = await s.client.toolError('serp_landscape', { keyword: 'Carbon Plate Shoes', depth, wait_ms: 0 });
      expect([depth, refused.status]).toEqual([depth, 400]);
      expect(refused.body).toMatchObject({
        error: 'validation_failed',
        issues: [{ path: 'keyword', message: expect.stringContaining('is a keyword idea') }],
      });
      expect(refused.body.message).toContain('get_keywords {topic_id, seeds: ["carbon plate shoes"]}');
    }
    expect(t.stack.queues.research.sent).toBe(queued);
    expect((await s.client.route('GET /v1/usage')).body.calls).toBe(0); // refused before any SERP pull
    const metrics = await s.client.tool('serp_landscape', { keyword: 'carbon plate shoes' });
    expect(metrics.status).toBe(200);
    expect(metrics.body.keywords[0]).toMatchObject({ keyword_id: idea.id, serp: null });

    // Committed through a topic, it is a list target.
    const topic = await insert(s, 'cm_topics', { name: 'Racing' });
    expect((await s.client.tool('get_keywords', { topic_id: topic.id, seeds: ['carbon plate shoes'] })).status).toBe(
      200,
    );
    const list = await s.client.tool('serp_landscape', { keyword: 'carbon plate shoes', depth: 'list' });
    expect(list.status).toBe(200);
    expect(given(list.body.list, 'the list').fetched).toEqual(['carbon plate shoes']);
  });

  it('covers every keyword a page names in page and topic scope, one stored as an idea included: the page commits it', async () => {
    const s = await site();
    await insert(s, 'cm_keywords', { keyword: 'carbon plate shoes', is_idea: true });
    const topic = await insert(s, 'cm_topics', { name: 'Racing' });
    const page = await insert(s, 'cm_pages', {
      title: 'Racers',
      topic_id: topic.id,
      primary_keyword: 'Carbon Plate Shoes',
      secondary_keywords: ['racing flats'],
    });
    const queued = t.stack.queues.research.sent;

    for (const scope of [{ page_id: page.id }, { topic_id: topic.id }]) {
      const list = await s.client.tool('serp_landscape', { ...scope, depth: 'list' });
      expect([scope, list.status]).toEqual([scope, 200]);
      expect(list.body.list).toEqual({
        fetched: expect.any(Array),
        skipped: expect.any(Array),
        failed: [],
      });
      expect(
        [...given(list.body.list, 'the list').fetched, ...given(list.body.list, 'the list').skipped].sort(),
      ).toEqual(['carbon plate shoes', 'racing flats']);
      const analyze = await s.client.tool('serp_landscape', { ...scope, depth: 'analyze', wait_ms: 0 });
      expect(analyze.status).toBe(200);
      const research = given(analyze.body.research, 'the research');
      expect([...research.in_process, ...Object.keys(research.facts_by_keyword)].sort()).toEqual([
        'carbon plate shoes',
        'racing flats',
      ]);
    }
    expect(t.stack.queues.research.sent).toBe(queued + 2); // each keyword once

    const metrics = await s.client.tool('serp_landscape', { page_id: page.id });
    const shown = Object.fromEntries(metrics.body.keywords.map((k) => [k.keyword, k]));
    expect(shown['carbon plate shoes']).toMatchObject({ is_idea: false, serp: expect.any(Object) });
    expect(shown['racing flats']).toMatchObject({ is_idea: false, serp: expect.any(Object) });
  });

  it('lists one keyword in keyword scope and every keyword of a page in page scope', async () => {
    const s = await site();
    const keyword = await s.client.tool('serp_landscape', { keyword: 'Trail Running Shoes', depth: 'list' });
    expect(keyword.body.scope).toEqual({ type: 'keyword', id: null, name: 'trail running shoes' });
    expect(given(keyword.body.list, 'the list').fetched).toEqual(['trail running shoes']);
    expect(keyword.body.keywords[0]).toMatchObject({ keyword_id: null, volume: null }); // no metrics pulled yet

    const page = await insert(s, 'cm_pages', {
      title: 'Guide',
      primary_keyword: 'running shoes',
      secondary_keywords: ['running socks', 'running shorts'],
    });
    const pageReply = await s.client.tool('serp_landscape', { page_id: page.id, depth: 'list' });
    expect(pageReply.body.scope).toEqual({ type: 'page', id: page.id, name: 'Guide' });
    expect(given(pageReply.body.list, 'the list').fetched.sort()).toEqual([
      'running shoes',
      'running shorts',
      'running socks',
    ]);
  });
});

describe('serp_landscape and serp_keyword_refresh across locales', () => {
  it.each([
    ['WW/en (the sites CLI default)', undefined],
    ['GB/en', 'GB/en'],
  ])(
    "shows a keyword's refreshed SERP on a %s site, labelled US/en, until a SERP of its own locale is pulled",
    async (_name, locale) => {
      const s = await site({ locale });
      const own = locale ?? 'WW/en';
      const before = await s.client.tool('serp_landscape', { keyword: 'running shoes' });
      expect(before.body.keywords[0]).toMatchObject({ keyword: 'running shoes', locale: own, serp: null });

      const refreshed = await s.client.tool('serp_keyword_refresh', { keyword: 'Running Shoes' });
      expect(refreshed.body.row.locale).toBe('US/en');
      const after = await s.client.tool('serp_landscape', { keyword: 'running shoes' });
      expect(after.status).toBe(200);
      expect(after.body.coverage).toMatchObject({ keywords: 1, with_serp: 1 });
      expect(after.body.keywords[0]).toMatchObject({
        keyword: 'running shoes',
        locale: own,
        serp: { locale: 'US/en', fetched_at: refreshed.body.row.fetched_at, data_source: 'sandbox' },
      });
      expect(after.body.keywords[0]?.serp?.top_domains.length).toBeGreaterThan(0);
      // A committed keyword of a topic shows it too.
      const { topic } = await topicWith(s, ['running shoes']);
      const topicView = await s.client.tool('serp_landscape', { topic_id: topic.id });
      expect(topicView.body.keywords[0]).toMatchObject({ locale: own, serp: { locale: 'US/en' } });

      // list still pulls the SERP of the keyword's own locale, which then shows.
      const list = await s.client.tool('serp_landscape', { keyword: 'running shoes', depth: 'list' });
      expect(list.body.list).toEqual({ fetched: ['running shoes'], skipped: [], failed: [] });
      expect(list.body.keywords[0]?.serp?.locale).toBe(own);
      expect((await s.client.tool('serp_landscape', { keyword: 'running shoes' })).body.keywords[0]?.serp?.locale).toBe(
        own,
      );
    },
  );

  it('labels the SERP of a US/en site with its own locale', async () => {
    const s = await site();
    await s.client.tool('serp_keyword_refresh', { keyword: 'trail shoes' });
    const view = await s.client.tool('serp_landscape', { keyword: 'trail shoes', depth: 'list' });
    expect(given(view.body.list, 'the list').skipped).toEqual(['trail shoes']);
    expect(view.body.keywords[0]).toMatchObject({ locale: 'US/en', serp: { locale: 'US/en' } });
  });
});

describe('serp_keyword_refresh', () => {
  it('returns the stored top-20 row and the top-10 domains that are neither tracked nor the site', async () => {
    const s = await site({ domain: 'www.shoes.example.com' });
    const first = await s.client.tool('serp_keyword_refresh', { keyword: 'running shoes' });
    expect(first.status).toBe(200);
    expect(first.body.row).toMatchObject({ keyword: 'running shoes', locale: 'US/en', data_source: 'sandbox' });
    expect(first.body.row.items.map((i) => i.position)).toEqual(Array.from({ length: 20 }, (_v, i) => i + 1));
    expect(first.body.quota).toEqual({ limit: 20, used: 1, resets_at: nextUtcMidnight(new Date()) });
    const top10 = first.body.row.items.filter((i) => i.position <= 10).map((i) => i.domain);
    expect(first.body.untracked_competitors.length).toBeGreaterThan(0);
    for (const domain of first.body.untracked_competitors) expect(top10).toContain(domain);
    expect(first.body.untracked_competitors).not.toContain('shoes.example.com');

    const rival = first.body.untracked_competitors[0];
    await insert(s, 'cm_competitors', { domain: rival });
    const second = await s.client.tool('serp_keyword_refresh', { keyword: 'running shoes' });
    expect(second.body.untracked_competitors).not.toContain(rival);
    expect(second.body.quota.used).toBe(2);
    const landscape = await s.client.tool('serp_landscape', { keyword: 'running shoes' });
    expect(landscape.body.coverage.with_serp).toBe(1);
  });

  it('allows exactly 20 per site per UTC day under 50 concurrent calls; the rest get 429 quota_exceeded', async () => {
    const s = await site();
    // Raw calls: which of the racing calls is answered, and which refused, is the race's.
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_v, i) =>
        t.call('POST', '/v1/tools/serp_keyword_refresh', { keyword: `running shoes ${i % 7}` }, { key: s.key }),
      ),
    );
    const ok = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 429);
    expect(ok).toHaveLength(20);
    expect(refused).toHaveLength(30);
    expect(ok.map((r) => r.body.quota.used).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_v, i) => i + 1),
    );
    for (const r of refused) {
      expect(r.body).toEqual({
        error: 'quota_exceeded',
        code: 'quota_exceeded',
        message: expect.stringContaining('20 per site per UTC day'),
        limit: 20,
        used: 20,
        resets_at: nextUtcMidnight(new Date()),
      });
    }
    // Another site has its own quota.
    const other = await site();
    expect((await other.client.tool('serp_keyword_refresh', { keyword: 'running shoes' })).status).toBe(200);
  });
});

describe('two sites', () => {
  it("never see each other's keywords, SERP rows or usage", async () => {
    const a = await site();
    const b = await site();
    const topicA = await insert(a, 'cm_topics', { name: 'A' });
    await a.client.tool('get_keywords', { topic_id: topicA.id, seeds: ['running shoes'] });
    await a.client.tool('serp_keyword_refresh', { keyword: 'trail shoes' });
    await a.client.tool('serp_landscape', { topic_id: topicA.id, depth: 'list' });

    expect((await b.client.tool('db_select', { table: 'cm_keywords' })).body.rows).toEqual([]);
    expect((await b.client.tool('db_select', { table: 'cm_topic_keywords' })).body.rows).toEqual([]);
    for (const keyword of ['running shoes', 'trail shoes']) {
      const view = await b.client.tool('serp_landscape', { keyword });
      expect(view.body.keywords).toEqual([
        expect.objectContaining({ keyword, keyword_id: null, volume: null, serp: null }),
      ]);
    }
    expect((await b.client.toolError('serp_landscape', { topic_id: topicA.id })).status).toBe(404);
    expect((await b.client.toolError('get_keywords', { topic_id: topicA.id })).status).toBe(404);
    expect((await b.client.route('GET /v1/usage')).body).toMatchObject({ calls: 0, by_tool: [] });
    expect((await a.client.route('GET /v1/usage')).body.calls).toBe(3);
  });
});

describe('usage ledger', () => {
  it("sums provider calls per tool and provider, in the requested window, for the key's site only", async () => {
    const s = await site();
    const before = new Date().toISOString();
    await s.client.tool('get_keywords', { seeds: ['running shoes'] });
    await s.client.tool('serp_keyword_refresh', { keyword: 'running shoes' });
    await s.client.tool('serp_keyword_refresh', { keyword: 'trail shoes' });
    await s.client.tool('serp_landscape', { keyword: 'running shoes' }); // read-only: no call
    const report = await s.client.route('GET /v1/usage');
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ calls: 3, cost_usd: 0 });
    expect(report.body.by_tool).toEqual([
      { tool: 'serp_keyword_refresh', provider: 'sandbox', calls: 2, cost_usd: 0 },
      { tool: 'get_keywords', provider: 'sandbox', calls: 1, cost_usd: 0 },
    ]);
    const window = await s.client.route('GET /v1/usage', { query: { from: '2020-01-01T00:00:00Z', to: before } });
    expect(window.body).toMatchObject({ calls: 0, by_tool: [], from: '2020-01-01T00:00:00.000Z' });
    const other = await site();
    expect((await other.client.route('GET /v1/usage')).body).toMatchObject({ calls: 0, by_tool: [] });
    const backwards = await s.client.routeError('GET /v1/usage', {
      query: { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
    });
    expect(backwards.status).toBe(400);
  });

  it('breaks the sums down per UTC day and tool with by=day, from one read of the window', async () => {
    const s = await site();
    const call = (endpoint: string, cost_usd: number) => ({ provider: 'dataforseo', endpoint, cost_usd });
    await t.store.usage.record(
      s.siteId,
      'serp_landscape',
      [call('serp', 0.002), call('serp', 0.002)],
      '2026-03-01T23:59:59.999Z',
    );
    await t.store.usage.record(s.siteId, 'get_keywords', [call('volume', 0.075)], '2026-03-02T00:00:00.000Z');
    await t.store.usage.record(s.siteId, 'serp_landscape', [call('serp', 0.002)], '2026-03-02T10:00:00.000Z');
    await t.store.usage.record(s.siteId, 'monitor', [call('backlinks', 0.02)], '2026-04-01T00:00:00.000Z'); // outside the window
    const window = { from: '2026-03-01T00:00:00Z', to: '2026-04-01T00:00:00Z' };
    const report = await s.client.route('GET /v1/usage', { query: { ...window, by: 'day' } });
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ calls: 4, cost_usd: 0.081 });
    expect(report.body.by_day).toEqual([
      { day: '2026-03-01', tool: 'serp_landscape', provider: 'dataforseo', calls: 2, cost_usd: 0.004 },
      { day: '2026-03-02', tool: 'get_keywords', provider: 'dataforseo', calls: 1, cost_usd: 0.075 },
      { day: '2026-03-02', tool: 'serp_landscape', provider: 'dataforseo', calls: 1, cost_usd: 0.002 },
    ]);
    // Without by=day the reply is as before; another grouping is refused.
    expect((await s.client.route('GET /v1/usage', { query: window })).body).not.toHaveProperty('by_day');
    expect((await s.client.routeError('GET /v1/usage', { query: { ...window, by: 'week' } })).status).toBe(400);
  });
});
