import { randomBytes } from 'node:crypto';
import { LIMITS, PUBLISH_BODY_LIMIT_BYTES } from '@cm/contract';
import { sectionSlug } from '@cm/core';
import {
  article,
  publishArticle,
  publishQuestion,
  question,
  requestPathCount,
  warmKeyCheck,
  useTestStack,
} from '../helpers/local';
import { apiClient, given } from '../helpers/client';
import { COUNTED_REQUESTS } from '../helpers/request-counts';

const t = useTestStack();

describe('auth', () => {
  it('answers 401 unauthorized without a key and with an unknown key, in the error shape', async () => {
    for (const key of [null, 'cmk_not-a-real-key']) {
      const res = await apiClient(t, key).routeError('POST /articles', { body: article('auth-check') });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: 'unauthorized', code: 'unauthorized' });
      expect(typeof res.body.message).toBe('string');
    }
    expect((await apiClient(t).routeError('GET /articles', { query: { slug: 'auth-check' } })).status).toBe(404);
  });

  it('never shows a page to another site: its id answers 404 as an unknown id does', async () => {
    const published = await publishArticle(t, 'private-page');
    const other = apiClient(t, (await t.newSite()).key);
    const res = await other.routeError('GET /articles/{id}', { params: { id: published.body.id } });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
    expect((await other.routeError('GET /articles', { query: { slug: 'private-page' } })).status).toBe(404);
    expect((await other.route('GET /articles')).body.items).toEqual([]);
    expect((await apiClient(t).route('GET /articles/{id}', { params: { id: published.body.id } })).status).toBe(200);
  });
});

describe('POST /articles', () => {
  it('upserts by slug: 201 then 200, one page, the same id, the second body stored', async () => {
    const first = await publishArticle(t, 'upsert-me', { excerpt: 'first' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      type: 'article',
      slug: 'upsert-me',
      status: 'published',
      created: true,
      warnings: [],
    });
    expect(first.body.url).toBe(`${t.url}/sites/${t.siteId}/articles/upsert-me`);

    const second = await publishArticle(t, 'upsert-me', { title: 'Replaced', status: 'draft' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ id: first.body.id, created: false, status: 'draft' });

    const read = await apiClient(t).route('GET /articles/{id}', { params: { id: first.body.id } });
    expect(read.body).toMatchObject({ title: 'Replaced', status: 'draft', live: false, excerpt: null });
    const list = await apiClient(t).route('GET /articles', { query: { limit: 200 } });
    expect(list.body.items.filter((i) => i.slug === 'upsert-me')).toHaveLength(1);
  });

  it('gives concurrent first publishes of one slug one page: exactly one 201, one id', async () => {
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_v, i) => publishArticle(t, 'raced', { title: `Racer ${i}` })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    const list = await apiClient(t).route('GET /articles', { query: { limit: 200 } });
    expect(list.body.items.filter((i) => i.slug === 'raced')).toHaveLength(1);
  });

  it('applies the defaults and returns every stored field', async () => {
    const res = await publishArticle(t, 'defaults', { excerpt: 'Short summary' });
    const page = (await apiClient(t).route('GET /articles/{id}', { params: { id: res.body.id } })).body;
    expect(page).toMatchObject({
      id: res.body.id,
      type: 'article',
      site_id: t.siteId,
      slug: 'defaults',
      meta_title: 'Title of defaults',
      meta_description: 'Short summary',
      noindex: false,
      schema_type: 'Article',
      ai_generated: true,
      status: 'published',
      live: true,
      copy: null,
      keywords: [],
      related_article_ids: [],
      related_question_ids: [],
    });
    expect(Date.parse(page.updated_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(page.created_at).toBe(page.updated_at);
  });

  it('returns copy byte for byte: unicode, CRLF, tabs, markers', async () => {
    const copy =
      'Line one\r\nLine\ttwo — ünïcödé 漢字 🏃‍♀️\r\n\r\n[see](page:art_aaaaaaaaaaaaaaaa)\n\t  trailing  \u2028end\\"quote\'';
    const res = await publishArticle(t, 'copy-bytes', { copy });
    const page = await apiClient(t).route('GET /articles/{id}', { params: { id: res.body.id } });
    expect(page.body.copy).toBe(copy);
    expect(Buffer.from(given(page.body.copy, 'the copy'), 'utf8').equals(Buffer.from(copy, 'utf8'))).toBe(true);
  });

  it("ignores unknown fields and an article's sources", async () => {
    const res = await publishArticle(t, 'tolerant', {
      sources: [{ id: 'src-1' }],
      future_field: { x: 1 },
      summary: 'no',
    });
    expect(res.status).toBe(201);
    const page = (await apiClient(t).route('GET /articles/{id}', { params: { id: res.body.id } })).body;
    expect(page).not.toHaveProperty('sources');
    expect(page).not.toHaveProperty('future_field');
  });

  it('rejects a site_id of another site with 403 site_mismatch and stores nothing', async () => {
    const res = await apiClient(t).routeError('POST /articles', {
      body: article('mismatch', { site_id: t.siteId + 100 }),
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'site_mismatch', code: 'site_mismatch' });
    expect((await apiClient(t).routeError('GET /articles', { query: { slug: 'mismatch' } })).status).toBe(404);
    expect((await publishArticle(t, 'mismatch', { site_id: t.siteId })).status).toBe(201);
  });

  it('answers 403 for a site_id that is not the key site in any form, before validating the rest of the body', async () => {
    const claims = [
      String(t.siteId + 1),
      t.siteId + 100,
      0,
      -1,
      t.siteId + 0.5,
      'abc',
      `${t.siteId} `,
      `0${t.siteId}`,
      true,
      {},
      [t.siteId],
    ];
    const invalidElsewhere = {
      slug: 'Not A Slug',
      body: 'not blocks',
      answer: 7,
      noindex: 'yes',
      updated_at: 'yesterday',
    };
    for (const site_id of claims) {
      for (const [path, body] of [
        ['/articles', article('claimed', { site_id })],
        ['/questions', question('claimed', { site_id })],
        ['/articles', { ...invalidElsewhere, site_id }],
        ['/questions', { ...invalidElsewhere, site_id }],
      ] as const) {
        const res = await t.call('POST', path, body);
        expect([JSON.stringify(site_id), path, res.status, res.body.code]).toEqual([
          JSON.stringify(site_id),
          path,
          403,
          'site_mismatch',
        ]);
      }
    }
    expect((await apiClient(t).routeError('GET /articles', { query: { slug: 'claimed' } })).status).toBe(404);
    expect((await apiClient(t).routeError('GET /questions', { query: { slug: 'claimed' } })).status).toBe(404);

    // The key's site, as a number or its decimal string, matches; then the rest of the body is validated.
    expect((await publishArticle(t, 'claimed', { site_id: String(t.siteId) })).status).toBe(201);
    expect((await publishQuestion(t, 'claimed', { site_id: t.siteId })).status).toBe(201);
    // null is the same as leaving it out (audit: a serializer that writes every field).
    expect((await publishArticle(t, 'claimed-null', { site_id: null })).status).toBe(201);
    const invalid = await t.call('POST', '/articles', { ...invalidElsewhere, site_id: String(t.siteId) });
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe('validation_failed');
    // Authentication and reading the body still come first.
    expect((await t.call('POST', '/articles', { site_id: 'abc' }, { key: null })).status).toBe(401);
    expect((await t.call('POST', '/articles', '{"site_id": "abc",')).status).toBe(400);
  });

  it('enforces the slug rule: one lowercase segment of up to 512 characters', async () => {
    const refused = [
      'Best-Shoes',
      'Über-uns',
      'two words',
      'tab\there',
      'a/b',
      'a?b',
      'a#b',
      '.',
      '..',
      'zero\u200bwidth',
      '',
      'x'.repeat(513),
    ];
    for (const slug of refused) {
      const res = await apiClient(t).routeError('POST /articles', { body: article(slug) });
      expect([slug, res.status, res.body.error]).toEqual([slug, 400, 'validation_failed']);
      expect(res.body.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'slug' })]));
    }
    for (const slug of ['a--b', 'a_b', 'ab-', '-ab', 'a.b', '...', 'x'.repeat(512), '😀'.repeat(512)]) {
      const res = await publishArticle(t, slug);
      expect([slug, res.status, res.body.slug]).toEqual([slug, 201, slug]);
    }
  });

  it('refuses a category or topic over 200 characters with 400 naming it, storing nothing; takes one of 200 in any script', async () => {
    const max = LIMITS.sectionNameMax;
    const refused = [
      ['articles', article('long-category', { category: 'c'.repeat(max + 1) }), 'category'],
      ['questions', question('long-topic', { topics: ['shoes', 't'.repeat(2000)] }), 'topics[1]'],
    ] as const;
    for (const [type, body, path] of refused) {
      const res = await apiClient(t).routeError(`POST /${type}`, { body });
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
      expect(res.body.issues).toEqual([{ path, message: expect.stringContaining(`<=${max} characters`) }]);
      expect((await apiClient(t).routeError(`GET /${type}`, { query: { slug: body.slug } })).status).toBe(404);
    }
    // The longest slugs a character makes (क़: "क-", 4 bytes), and lowercasing's longest (İ: "i̇", 2 characters).
    for (const [name, letter] of [
      ['nukta', '\u0958'],
      ['dotted', 'İ'],
    ] as const) {
      const category = letter.repeat(max);
      const res = await publishArticle(t, `max-category-${name}`, { category });
      expect(res.status).toBe(201);
      const listed = await t.call('GET', `/sites/${t.siteId}/categories/${encodeURIComponent(sectionSlug(category))}`);
      expect([listed.status, listed.text]).toEqual([200, expect.stringContaining(`Title of max-category-${name}`)]);
    }
    const topics = ['t'.repeat(max), '😀'.repeat(max / 2)];
    expect((await publishQuestion(t, 'max-topics', { topics })).status).toBe(201);
  });

  it('stores a page-link or related id of any length whole, and indexes only page ids', async () => {
    const target = (await publishArticle(t, 'link-target')).body.id;
    const long = 'x'.repeat(3000);
    const res = await publishArticle(t, 'long-links', {
      copy: `See [this](page:${long}) and [that](page:${target}).`,
      related_article_ids: [long, target],
      related_question_ids: ['😀'.repeat(1000)],
    });
    expect(res.status).toBe(201);
    const stored = await apiClient(t).route('GET /articles/{id}', { params: { id: res.body.id } });
    expect(stored.body).toMatchObject({
      related_article_ids: [long, target],
      related_question_ids: ['😀'.repeat(1000)],
    });
    const edges = await t.store.links.linkingPages(t.siteId, target, { limit: 10 });
    expect(edges.pages).toEqual([{ id: res.body.id, type: 'article' }]);
  });

  it('takes an optional field sent as null as left out: its default applies', async () => {
    const nulls = Object.fromEntries(
      [
        ...[
          'meta_title',
          'meta_description',
          'keywords',
          'audience',
          'goal',
          'category',
          'cover_image',
          'canonical_url',
          'copy',
        ],
        ...[
          'noindex',
          'schema_type',
          'related_article_ids',
          'related_question_ids',
          'status',
          'ai_generated',
          'ai_model',
          'updated_at',
        ],
      ].map((field) => [field, null]),
    );
    const res = await publishArticle(t, 'all-null', { excerpt: 'Card text', ...nulls });
    expect(res.status).toBe(201);
    const page = (await apiClient(t).route('GET /articles/{id}', { params: { id: res.body.id } })).body;
    expect(page).toMatchObject({
      meta_title: 'Title of all-null',
      meta_description: 'Card text',
      keywords: [],
      audience: null,
      goal: null,
      category: null,
      cover_image: null,
      canonical_url: null,
      copy: null,
      noindex: false,
      schema_type: 'Article',
      related_article_ids: [],
      related_question_ids: [],
      status: 'published',
      live: true,
      ai_generated: true,
      ai_model: null,
    });
    expect(Date.parse(page.updated_at)).toBeGreaterThan(Date.now() - 60_000);
    const visitorPath = new URL(res.body.url).pathname;
    expect((await t.call('GET', visitorPath, undefined, { key: null })).text).toContain(
      '<meta name="description" content="Card text">',
    );

    const q = await publishQuestion(t, 'all-null', {
      sources: null,
      topics: null,
      status: null,
      meta_title: null,
      updated_at: null,
    });
    expect(q.status).toBe(201);
    expect((await apiClient(t).route('GET /questions/{id}', { params: { id: q.body.id } })).body).toMatchObject({
      sources: [],
      topics: [],
      status: 'published',
      meta_title: 'What is all-null?',
    });
  });

  it('answers 400 invalid_json and 400 validation_failed listing every issue', async () => {
    const bad = await t.call('POST', '/articles', '{"slug": "x",');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'invalid_json', code: 'invalid_json', message: expect.any(String) });

    const invalid = await t.call('POST', '/articles', { slug: 'ok', body: [{ level: 9, text: 'x' }], noindex: 'yes' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe('validation_failed');
    const paths = invalid.body.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['title', 'body[0]._type', 'noindex']));
    expect(invalid.body.message).toContain('body.title: Required');

    const empty = await t.call('POST', '/articles');
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('validation_failed');
  });

  it('reports blocks it stored but will not render in warnings[]', async () => {
    const res = await publishArticle(t, 'warned', {
      body: [
        { _type: 'paragraph', text: 'ok' },
        { _type: 'carousel', slides: [] },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([{ path: 'body[1]', message: expect.any(String) }]);
    const page = (await apiClient(t).route('GET /articles/{id}', { params: { id: res.body.id } })).body;
    expect(page.body[1]).toEqual({ _type: 'carousel', slides: [] });
  });
});

describe('slugs in URLs', () => {
  it('percent-encodes a slug in its visitor URL, which serves the page; the slug is compared in NFC', async () => {
    const res = await publishArticle(t, 'café-au-lait');
    expect(res.status).toBe(201);
    expect(res.body.slug).toBe('café-au-lait');
    expect(res.body.url).toBe(`${t.url}/sites/${t.siteId}/articles/caf%C3%A9-au-lait`);
    const page = await t.call('GET', `/sites/${t.siteId}/articles/caf%C3%A9-au-lait`, undefined, { key: null });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<title>Title of café-au-lait</title>');
    expect(page.text).toContain(`<link rel="canonical" href="${res.body.url}">`);

    // The same slug with its é decomposed is the same page, however it arrives.
    const again = await publishArticle(t, 'cafe\u0301-au-lait', { title: 'Again' });
    expect([again.status, again.body.id, again.body.slug]).toEqual([200, res.body.id, 'café-au-lait']);
    expect(
      (await t.call('GET', `/sites/${t.siteId}/articles/cafe%CC%81-au-lait`, undefined, { key: null })).text,
    ).toContain('<title>Again</title>');
    expect((await apiClient(t).route('GET /articles', { query: { slug: 'cafe\u0301-au-lait' } })).body.id).toBe(
      res.body.id,
    );

    // Characters a URL path reserves round-trip too.
    const slug = "über_100%-a&b=c+d;e,f'g(h)!*~";
    const q = await publishQuestion(t, slug);
    expect(q.status).toBe(201);
    const visit = await t.call('GET', new URL(q.body.url).pathname, undefined, { key: null });
    expect(visit.status).toBe(200);
    // The slug as encodeURIComponent writes it, ' ( ) ! ~ left bare (the typed client's query would escape them).
    expect((await t.call('GET', `/questions?slug=${encodeURIComponent(slug)}`)).body.id).toBe(q.body.id);
  });
});

describe('dates', () => {
  const forms = [
    ['2025-01-02', '2025-01-02T00:00:00.000Z'],
    ['2025-01-02T03:04:05', '2025-01-02T03:04:05.000Z'],
    ['2025-01-02T03:04:05+02:00', '2025-01-02T01:04:05.000Z'],
    ['2025-01-02T03:04:05+0200', '2025-01-02T01:04:05.000Z'],
    ['2025-01-02T03:04:05+02', '2025-01-02T01:04:05.000Z'],
    ['20250102T030405Z', '2025-01-02T03:04:05.000Z'],
    ['20250102T030405-0130', '2025-01-02T04:34:05.000Z'],
    ['2025-01-02T03:04Z', '2025-01-02T03:04:00.000Z'],
    ['2025-01-02T03:04:05.123456Z', '2025-01-02T03:04:05.123Z'],
    ['2025-01-02t03:04:05z', '2025-01-02T03:04:05.000Z'],
    ['2025-01-02 03:04:05Z', '2025-01-02T03:04:05.000Z'],
  ];

  it("stores a publish's updated_at, in every ISO 8601 form, as UTC", async () => {
    for (const [i, [sent, stored]] of forms.entries()) {
      const res = await publishArticle(t, `dated-${i}`, { updated_at: sent });
      expect([sent, res.status, res.body.updated_at]).toEqual([sent, 201, stored]);
      expect((await apiClient(t).route('GET /articles/{id}', { params: { id: res.body.id } })).body.updated_at).toBe(
        stored,
      );
    }
  });

  it("keeps a source's accessed_at date as a date, and stores a date-time as UTC", async () => {
    const sources = ['2025-01-02', '20250102', '20250102T030405+0200'].map((accessed_at, i) => ({
      id: `src-${i + 1}`,
      title: 't',
      url: 'https://s.example',
      accessed_at,
    }));
    const res = await publishQuestion(t, 'sourced-dates', { sources });
    expect(res.status).toBe(201);
    const read = (await apiClient(t).route('GET /questions/{id}', { params: { id: res.body.id } })).body;
    expect(read.sources.map((s) => s.accessed_at)).toEqual(['2025-01-02', '2025-01-02', '2025-01-02T01:04:05.000Z']);
  });

  it('stores a source missing title, url or accessed_at (or with nulls) as sent, renders what is there, and warns (audit)', async () => {
    const sources = [
      { id: 'src-1', url: 'https://a.example/one', accessed_at: '2026-11-01' },
      { id: 'src-2', title: 'No link', url: null, accessed_at: null },
      { id: 'src-3', title: null, url: 'javascript:alert(1)', publisher: { name: 'Kept' } },
      { title: 'No id' },
    ];
    const answer = [
      {
        _type: 'paragraph',
        children: [
          { _type: 'span', text: 'A' },
          { _type: 'sourceCitation', id: 'src-1' },
          { _type: 'span', text: ' B' },
          { _type: 'sourceCitation', id: 'src-2' },
        ],
      },
    ];
    const res = await publishQuestion(t, 'partial-sources', { answer, sources });
    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([
      { path: 'sources[0].title', message: expect.stringMatching(/^missing/) },
      { path: 'sources[1].url', message: expect.stringMatching(/^missing/) },
      { path: 'sources[1].accessed_at', message: expect.stringMatching(/^missing/) },
      { path: 'sources[2].title', message: expect.stringMatching(/^missing/) },
      { path: 'sources[2].url', message: expect.stringMatching(/scheme not allowed/) },
      { path: 'sources[2].accessed_at', message: expect.stringMatching(/^missing/) },
      { path: 'sources[3].id', message: expect.stringMatching(/cannot be cited/) },
      { path: 'sources[3].url', message: expect.stringMatching(/^missing/) },
      { path: 'sources[3].accessed_at', message: expect.stringMatching(/^missing/) },
    ]);
    // Read back as sent, unknown fields included.
    expect((await apiClient(t).route('GET /questions/{id}', { params: { id: res.body.id } })).body.sources).toEqual(
      sources,
    );
    const html = (await t.call('GET', `/sites/${t.siteId}/questions/partial-sources`, undefined, { key: null })).text;
    expect(html).toContain(
      '<p>A<sup class="citation"><a href="#source-1">[1]</a></sup> B<sup class="citation"><a href="#source-2">[2]</a></sup></p>',
    );
    expect(html).toContain(
      '<ol><li id="source-1"><a href="https://a.example/one" rel="nofollow noopener">https://a.example/one</a> <span class="accessed">accessed 2026-11-01</span></li><li id="source-2">No link</li><li id="source-3">javascript:alert(1)</li><li id="source-4">No id</li></ol>',
    );
    expect(html).not.toContain('href="javascript');
  });

  it('still refuses a source field of the wrong type or form, at its path', async () => {
    for (const [source, path] of [
      [{ id: 'src-1', url: 'not a url' }, 'sources[0].url'],
      [{ id: 7 }, 'sources[0].id'],
      ['src-1', 'sources[0]'],
    ] as const) {
      const res = await apiClient(t).routeError('POST /questions', {
        body: question('bad-source', { sources: [source] }),
      });
      expect([res.status, res.body.issues?.map((i) => i.path)]).toEqual([400, [path]]);
    }
  });

  it('answers 400 on updated_at for a string that is not a date, and keeps such a source accessed_at with a warning', async () => {
    for (const updated_at of ['yesterday', '2025-02-30', '2025-13-01', '2025-01-02T25:00:00Z', '02/01/2025']) {
      const res = await apiClient(t).routeError('POST /articles', { body: article('misdated', { updated_at }) });
      expect([updated_at, res.status, res.body.issues?.map((i) => i.path)]).toEqual([updated_at, 400, ['updated_at']]);
    }
    expect((await apiClient(t).routeError('GET /articles', { query: { slug: 'misdated' } })).status).toBe(404);
    // A source's accessed_at is only "a date string" in the spec: a date that does not exist is kept, with a warning.
    const source = { id: 'src-1', title: 't', url: 'https://s.example', accessed_at: '2025-02-30' };
    const res = await publishQuestion(t, 'misdated', { sources: [source] });
    expect(res.status).toBe(201);
    expect(res.body.warnings.map((w) => w.path)).toEqual(['sources[0].accessed_at']);
  });

  it("reads a notify's updated_at in the same forms", async () => {
    const { id } = (await publishArticle(t, 'notified-dates')).body;
    // A minute ahead, in the basic format: newer than the publish, so the notify applies.
    const basic = new Date(Date.now() + 60_000).toISOString().replace(/[-:]|\.\d+/g, '');
    const res = await apiClient(t).route('POST /api/content/notify', {
      body: {
        id,
        type: 'article',
        status: 'draft',
        updated_at: basic,
      },
    });
    expect(res.status).toBe(200);
    expect((await apiClient(t).route('GET /articles/{id}', { params: { id } })).body.status).toBe('draft');
    const bad = await apiClient(t).routeError('POST /api/content/notify', {
      body: {
        id,
        type: 'article',
        status: 'published',
        updated_at: '2025-02-30T00:00:00Z',
      },
    });
    expect([bad.status, bad.body.issues?.map((i) => i.path)]).toEqual([400, ['updated_at']]);
  });
});

describe('large pages', () => {
  it('stores and reads back a 1 MiB body byte for byte, and refuses one over the publish limit with 413', async () => {
    const build = (bytes: number) => {
      const base = { slug: 'huge', title: 'Huge', body: [{ _type: 'paragraph', text: 'x' }], copy: '' };
      const room = bytes - Buffer.byteLength(JSON.stringify(base));
      // Random base64 barely compresses, so the stored document really exceeds one DynamoDB item.
      return { ...base, copy: randomBytes(room).toString('base64').slice(0, room) };
    };
    const exact = JSON.stringify(build(1024 * 1024));
    expect(Buffer.byteLength(exact)).toBe(1024 * 1024);
    const res = await t.call('POST', '/articles', exact);
    expect(res.status).toBe(201);
    const page = await apiClient(t).route('GET /articles/{id}', { params: { id: res.body.id } });
    expect(page.body.copy).toBe(JSON.parse(exact).copy);

    // Republishing a large page replaces its chunks whole.
    const again = build(900 * 1024);
    expect((await apiClient(t).route('POST /articles', { body: again })).status).toBe(200);
    expect((await apiClient(t).route('GET /articles/{id}', { params: { id: res.body.id } })).body.copy).toBe(
      again.copy,
    );

    const over = JSON.stringify(build(PUBLISH_BODY_LIMIT_BYTES + 1));
    const tooBig = await t.call('POST', '/articles', over);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toMatchObject({ error: 'payload_too_large', limit_bytes: PUBLISH_BODY_LIMIT_BYTES });
    expect((await apiClient(t).route('GET /articles/{id}', { params: { id: res.body.id } })).body.copy).toBe(
      again.copy,
    );
  });
});

describe('questions', () => {
  it('stores a question without status as published and reads it back', async () => {
    const res = await publishQuestion(t, 'boiling', {
      sources: [{ id: 'src-1', title: 'Physics', url: 'https://example.org/p', accessed_at: '2026-11-01' }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'question', status: 'published' });
    const q = (await apiClient(t).route('GET /questions/{id}', { params: { id: res.body.id } })).body;
    expect(q).toMatchObject({
      type: 'question',
      question: 'What is boiling?',
      meta_title: 'What is boiling?',
      live: true,
      summary: null,
      community_answers: [],
    });
    expect(q.sources).toHaveLength(1);
    expect((await apiClient(t).route('GET /questions', { query: { slug: 'boiling' } })).body.id).toBe(res.body.id);
    expect((await apiClient(t).routeError('GET /articles/{id}', { params: { id: res.body.id } })).status).toBe(404);
  });

  it("replaces the editor's answer and sources whole, and leaves the summary and community answers alone", async () => {
    const first = await publishQuestion(t, 'kept-parts', {
      answer: [
        { _type: 'paragraph', text: 'Old answer' },
        { _type: 'paragraph', text: 'Old second' },
      ],
      sources: [
        { id: 'src-1', title: 'A', url: 'https://a.example', accessed_at: '2026-01-01' },
        { id: 'src-2', title: 'B', url: 'https://b.example', accessed_at: '2026-01-01' },
      ],
    });
    const id = first.body.id;
    const summary = await apiClient(t).route('PUT /questions/{id}/summary', {
      params: { id },
      body: { summary: 'Written by the site' },
    });
    expect(summary.status).toBe(200);
    expect(summary.body.summary).toBe('Written by the site');
    const answer = await apiClient(t).route('POST /questions/{id}/answers', {
      params: { id },
      body: {
        author: 'reader',
        blocks: [{ _type: 'paragraph', text: 'Me too' }],
      },
    });
    expect(answer.status).toBe(201);
    expect(typeof answer.body.answer_id).toBe('string');

    const again = await publishQuestion(t, 'kept-parts', {
      answer: [{ _type: 'paragraph', text: 'New answer' }],
      sources: [{ id: 'src-3', title: 'C', url: 'https://c.example', accessed_at: '2026-02-01' }],
      summary: 'The editor may not write this',
    });
    expect(again.status).toBe(200);
    const q = (await apiClient(t).route('GET /questions/{id}', { params: { id } })).body;
    expect(q.answer).toEqual([{ _type: 'paragraph', text: 'New answer' }]);
    expect(q.sources.map((s) => s.id)).toEqual(['src-3']);
    expect(q.summary).toBe('Written by the site');
    expect(q.community_answers).toEqual([
      {
        answer_id: answer.body.answer_id,
        author: 'reader',
        blocks: [{ _type: 'paragraph', text: 'Me too' }],
        created_at: expect.any(String),
      },
    ]);

    const cleared = await apiClient(t).route('PUT /questions/{id}/summary', {
      params: { id },
      body: { summary: null },
    });
    expect(cleared.body.summary).toBeNull();
  });

  it('answers 404 for site-owned parts of a question that does not exist, and 400 for bad bodies', async () => {
    const unknown = { id: 'qst_aaaaaaaaaaaaaaaa' };
    expect(
      (await apiClient(t).routeError('PUT /questions/{id}/summary', { params: unknown, body: { summary: 'x' } }))
        .status,
    ).toBe(404);
    expect(
      (
        await apiClient(t).routeError('POST /questions/{id}/answers', {
          params: unknown,
          body: { author: 'a', blocks: [] },
        })
      ).status,
    ).toBe(404);
    const q = await publishQuestion(t, 'parts-400');
    const bad = await apiClient(t).routeError('PUT /questions/{id}/summary', {
      params: { id: q.body.id },
      body: { summary: 5 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.issues?.[0]?.path).toBe('summary');
    expect(
      (
        await apiClient(t).routeError('POST /questions/{id}/answers', {
          params: { id: q.body.id },
          body: { blocks: [] },
        })
      ).status,
    ).toBe(400);
  });
});

describe('listing', () => {
  it('lists newest updated_at first with limit, cursor and status, and finds by slug', async () => {
    const site = await t.newSite('Listing site');
    const client = apiClient(t, site.key);
    const publish = (slug: string, updated_at: string, status = 'published') =>
      client.route('POST /articles', { body: article(slug, { updated_at, status }) });
    await publish('l-one', '2026-01-01T00:00:00Z');
    await publish('l-two', '2026-01-02T00:00:00Z', 'draft');
    await publish('l-three', '2026-01-03T00:00:00Z');
    await publish('l-four', '2026-01-04T00:00:00Z');
    await publish('l-five', '2026-01-05T00:00:00+02:00', 'draft');

    const seen: string[] = [];
    const pageAfter = (previous: string | null) =>
      client.route('GET /articles', { query: { limit: 2, cursor: previous ?? undefined } });
    let cursor: string | null = null;
    do {
      const page = await pageAfter(cursor);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((i) => i.slug));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['l-five', 'l-four', 'l-three', 'l-two', 'l-one']);

    const drafts = await client.route('GET /articles', { query: { status: 'draft' } });
    const url = (slug: string) => `${t.url}/sites/${site.siteId}/articles/${slug}`;
    expect(drafts.body.items).toEqual([
      {
        id: expect.any(String),
        slug: 'l-five',
        title: 'Title of l-five',
        status: 'draft',
        live: false,
        deleted: false,
        updated_at: '2026-01-04T22:00:00.000Z',
        url: url('l-five'),
      },
      {
        id: expect.any(String),
        slug: 'l-two',
        title: 'Title of l-two',
        status: 'draft',
        live: false,
        deleted: false,
        updated_at: '2026-01-02T00:00:00.000Z',
        url: url('l-two'),
      },
    ]);
    expect(drafts.body.next_cursor).toBeNull();

    // A republish moves the page out of its old status listing.
    await publish('l-two', '2026-01-06T00:00:00Z', 'published');
    const after = await client.route('GET /articles', { query: { status: 'draft' } });
    expect(after.body.items.map((i) => i.slug)).toEqual(['l-five']);

    const bySlug = await client.route('GET /articles', { query: { slug: 'l-three' } });
    expect(bySlug.body).toMatchObject({ slug: 'l-three', title: 'Title of l-three', type: 'article' });
    expect((await client.route('GET /questions')).body).toEqual({
      items: [],
      next_cursor: null,
    });
  });

  it('rejects a bad limit, status or cursor with 400', async () => {
    // A cursor naming positions past DynamoDB's 1024 bytes of a sort key is none this service made.
    const long = Buffer.from(JSON.stringify(['2026-01-01#art_x', `PAGE#article#${'x'.repeat(1100)}`])).toString(
      'base64url',
    );
    for (const query of ['limit=0', 'limit=201', 'limit=abc', 'status=live', 'cursor=bm9wZQ', `cursor=${long}`]) {
      const res = await t.call('GET', `/articles?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
  });
});

describe('a primary keyword another live page has (cannibalisation)', () => {
  const withKeyword = (slug: string, primary_keyword: string, extra: Record<string, unknown> = {}) =>
    publishArticle(t, slug, { primary_keyword, ...extra });

  it('warns a publish whose primary keyword is a live page’s of the site, naming that page; the page itself never', async () => {
    const first = await withKeyword('pk-first', 'trail shoes');
    expect(first.body.warnings).toEqual([]);
    // A republish of the same page: it does not compete with itself.
    expect((await withKeyword('pk-first', 'trail shoes', { title: 'Again' })).body.warnings).toEqual([]);
    // Another page, an article or a question, with the same keyword as sent in other case and spacing.
    const second = await publishQuestion(t, 'pk-second', { primary_keyword: ' Trail  Shoes ' });
    expect(second.status).toBe(201);
    expect(second.body.warnings).toEqual([
      {
        path: 'primary_keyword',
        message: expect.stringContaining(`live article ${first.body.id} (${first.body.url})`),
        page: { id: first.body.id, type: 'article', slug: 'pk-first', url: first.body.url },
      },
    ]);
    // Another site's page with the keyword is not this site's.
    const other = apiClient(t, (await t.newSite()).key);
    expect(
      (await other.route('POST /articles', { body: article('pk-other', { primary_keyword: 'trail shoes' }) })).body
        .warnings,
    ).toEqual([]);
  });

  it('counts live pages only: not a draft, a deleted page, nor a page that names another keyword now', async () => {
    await withKeyword('pk-draft', 'draft keyword', { status: 'draft' });
    expect((await withKeyword('pk-draft-2', 'draft keyword')).body.warnings).toEqual([]);
    const gone = await withKeyword('pk-gone', 'gone keyword');
    await apiClient(t).route('POST /api/content/notify', {
      body: { id: gone.body.id, type: 'article', action: 'deleted' },
    });
    expect((await withKeyword('pk-gone-2', 'gone keyword')).body.warnings).toEqual([]);
    await withKeyword('pk-moved', 'old keyword');
    await withKeyword('pk-moved', 'new keyword');
    expect((await withKeyword('pk-moved-2', 'old keyword')).body.warnings).toEqual([]);
    // Nor one republished without a keyword.
    await withKeyword('pk-dropped', 'dropped keyword');
    await publishArticle(t, 'pk-dropped');
    expect((await withKeyword('pk-dropped-2', 'dropped keyword')).body.warnings).toEqual([]);
    // The page that has it now is named.
    const warned = await withKeyword('pk-moved-3', 'new keyword');
    expect(warned.body.warnings.map((w) => w.page?.slug)).toEqual(['pk-moved']);
  });

  it('refuses a primary keyword that is no keyword with 400, storing nothing', async () => {
    const res = await apiClient(t).routeError('POST /articles', {
      body: article('pk-bad', { primary_keyword: 'x'.repeat(200) }),
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect((await apiClient(t).routeError('GET /articles', { query: { slug: 'pk-bad' } })).status).toBe(404);
  });
});

describe('DynamoDB round trips', () => {
  it('a publish whose content and links did not change makes one request, a changed content three; a read by id makes one', async () => {
    // Links to live pages: a link to a page readers cannot reach costs a write more (it is listed as suppressed).
    const [b, c] = await Promise.all(
      ['counted-b', 'counted-c'].map(
        async (slug) => (await apiClient(t).route('POST /articles', { body: article(slug) })).body.id,
      ),
    );
    const body = article('counted', { copy: `See [t](page:${b})`, related_article_ids: [c] });
    const first = await apiClient(t).route('POST /articles', { body });
    // The queues' workers (relink steps of earlier tests) share the counted engine: counting starts when they are done.
    await t.stack.drain();

    const same = await requestPathCount(t, () => apiClient(t).route('POST /articles', { body }));
    expect([same.result.status, same.requests]).toEqual([200, COUNTED_REQUESTS.publishUnchanged]);
    // New content, the same links: the revision of the version it replaced is kept (docs/api/publishing.md#revisions).
    const retitled = await requestPathCount(t, () =>
      apiClient(t).route('POST /articles', { body: { ...body, title: 'New title, same links' } }),
    );
    expect([retitled.result.status, retitled.requests]).toEqual([200, COUNTED_REQUESTS.publishChangedContent]);

    const read = await requestPathCount(t, () =>
      apiClient(t).route('GET /articles/{id}', { params: { id: first.body.id } }),
    );
    expect([read.result.status, read.requests]).toEqual([200, COUNTED_REQUESTS.readById]);

    // Changed links cost four more: the page's link items are read, the index written, the targets read,
    // and the page says its index has them (until then its next publish does it all again); and the revision's two and the refresh queue's one.
    const changed = await requestPathCount(t, () =>
      apiClient(t).route('POST /articles', {
        body: { ...body, title: 'New title, same links', related_article_ids: [] },
      }),
    );
    expect(changed.requests).toBe(COUNTED_REQUESTS.publishChangedContent + 4);
  });

  it('a publish with a primary keyword no other page has makes two requests more, in one round trip: its item and the Query of the keyword', async () => {
    const body = article('counted-keyword', { primary_keyword: 'counted keyword' });
    await apiClient(t).route('POST /articles', { body });
    const again = await requestPathCount(t, () => apiClient(t).route('POST /articles', { body }));
    expect([again.result.status, again.requests]).toEqual([200, COUNTED_REQUESTS.publishPrimaryKeyword]);
  });

  it('a new page without links is one request, and so is its replace with the same content (issue 36)', async () => {
    await t.stack.drain();
    const requests = () => t.stack.dynamo.requests();
    await warmKeyCheck(t);
    let before = requests();
    expect((await publishArticle(t, 'counted-new')).status).toBe(201);
    await t.stack.drain();
    expect(requests() - before).toBe(1);
    await warmKeyCheck(t);
    before = requests();
    expect((await publishArticle(t, 'counted-new')).status).toBe(200);
    await t.stack.drain();
    expect(requests() - before).toBe(1);
    // A replace with new content keeps a revision of the old: two requests more.
    await warmKeyCheck(t);
    before = requests();
    expect((await publishArticle(t, 'counted-new', { title: 'Again' })).status).toBe(200);
    await t.stack.drain();
    expect(requests() - before).toBe(COUNTED_REQUESTS.publishChangedContent);
  });
});

describe('discovery', () => {
  it('serves /health and /openapi.json without a key, and 404 not_found for unknown routes', async () => {
    expect((await apiClient(t, null).route('GET /health')).body).toEqual({ ok: true });
    const doc = (await t.call('GET', '/openapi.json', undefined, { key: null })).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/articles', '/questions/{id}', '/sites/{site_id}/articles/{slug}']),
    );
    expect(doc.paths['/articles'].post.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/ArticleInput',
    );
    expect(doc.components.schemas.ArticleInput.required).toEqual(expect.arrayContaining(['slug', 'title', 'body']));
    const missing = await t.call('GET', '/nowhere', undefined, { key: null });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
  });
});
