import {
  ApiError,
  ArticleInput,
  PageListQuery,
  QuestionInput,
  SiteIdBody,
  VisitorParams,
  buildOpenApi,
  formatPath,
  ROUTE_TABLE,
  ROUTES,
  routeKey,
  validationError,
  withDocs,
} from '@cm/contract';
import * as z from 'zod/mini';
import { given } from '../helpers/client';

const article = (extra: Record<string, unknown> = {}) => ({ slug: 'a-page', title: 'T', body: [], ...extra });
const question = (extra: Record<string, unknown> = {}) => ({
  slug: 'a-question',
  question: 'Q?',
  answer: [],
  ...extra,
});

/** The issue paths of a failed parse, as docs/api.md#validation-errors shows (`body[0].level`). */
function issuePaths(result: {
  success: boolean;
  error?: { issues: readonly { path: readonly PropertyKey[] }[] };
}): string[] {
  expect(result.success).toBe(false);
  return (result.error?.issues ?? []).map((i) => formatPath(i.path));
}

describe('slug', () => {
  const valid = [
    ...[
      'a',
      '0',
      'best-running-shoes',
      'a1-b2-c3',
      'a_b',
      'a--b',
      'ab-',
      '-a',
      'a.b',
      '...',
      '.a',
      'a..b',
      'über-uns',
      'café-au-lait',
      'ä',
    ],
    ...['ς', 'ⓐ', '漢字-2', 'it’s', "o'neil", 'a%20b', 'a\\b', '100%', 'a&b=c', 'a+b', '🏃'],
    // 512 characters, counted in code points: 512 four-byte characters are 2 KiB of UTF-8
    ...['a'.repeat(512), 'é'.repeat(512), '😀'.repeat(512)],
  ];
  const invalid = [
    ...['', 'Best', 'best-Running', 'Über-uns', 'CAFÉ', 'ǅ', 'İ', 'Ⓐ', 'Ω'],
    ...['a/b', '/', '/a', 'a/', 'a b', ' a', 'a ', 'a\tb', 'a\nb', 'a\u00a0b', 'a\u2028b', 'a\u3000b'],
    ...['a\u0000b', 'a\u001fb', 'a\u007fb', 'a\u0085b', 'a\u200bb', 'a\u202eb', 'a\ufeffb', 'a\ud800b', '\udfff'],
    ...['a?b', '?', 'a#b', '#', '.', '..'],
    ...['a'.repeat(513), '😀'.repeat(513)],
  ];
  const label = (s: string) => (s.length > 20 ? `${[...s].length} × ${[...s][0]}` : s);

  it.each(valid.map((s) => [label(s), s]))('accepts %j', (_label, slug) => {
    expect(ArticleInput.parse(article({ slug })).slug).toBe(slug);
    expect(QuestionInput.parse(question({ slug })).slug).toBe(slug);
  });

  it('compares and stores a slug in Unicode NFC', () => {
    const decomposed = 'cafe\u0301-au-lait';
    expect(ArticleInput.parse(article({ slug: decomposed })).slug).toBe('café-au-lait');
    expect(PageListQuery.parse({ slug: decomposed }).slug).toBe('café-au-lait');
    expect(VisitorParams.parse({ site_id: '1', slug: decomposed }).slug).toBe('café-au-lait');
    expect(issuePaths(ArticleInput.safeParse(article({ slug: 'E\u0301' })))).toEqual(['slug']);
  });

  it.each(invalid.map((s) => [label(s), s]))('rejects %j', (_label, slug) => {
    // an empty slug breaks two rules (length and pattern), both on `slug`
    expect([...new Set(issuePaths(ArticleInput.safeParse(article({ slug }))))]).toEqual(['slug']);
    expect([...new Set(issuePaths(QuestionInput.safeParse(question({ slug }))))]).toEqual(['slug']);
  });
});

describe('ArticleInput / QuestionInput', () => {
  it('drops unknown top-level fields, and sources on an article', () => {
    const parsed = ArticleInput.parse(
      article({
        sources: [{ id: 'src-1', title: 't', url: 'https://x.example.test', accessed_at: '2026-01-01' }],
        extra: 1,
        summary: 's',
      }),
    );
    expect(parsed).toEqual({ slug: 'a-page', title: 'T', body: [] });
    expect(parsed).not.toHaveProperty('sources');
  });

  it('drops unknown fields and summary from a question, and keeps its sources', () => {
    const src = { id: 'src-1', title: 't', url: 'https://x.example.test', accessed_at: '2026-01-01' };
    const parsed = QuestionInput.parse(question({ sources: [src], summary: 'site owned', whatever: { a: 1 } }));
    expect(parsed).toEqual({ slug: 'a-question', question: 'Q?', answer: [], sources: [src] });
  });

  it('accepts a known block in another shape than the one that renders, and keeps it exactly as sent', () => {
    const blocks = [
      { _type: 'heading', level: 9, text: 'x' },
      { _type: 'heading', level: '2', text: 'x' },
      { _type: 'heading', text: 'x' },
      { _type: 'list', style: 'ordered', items: ['a', 2, { text: 'b' }] },
      { _type: 'callout', tone: 'danger', text: 'x' },
      {
        _type: 'paragraph',
        children: [{ _type: 'sourceCitation' }, { _type: 'sourceCitation', id: 3 }, { text: 'no type' }, 'raw', null],
      },
      { _type: 'paragraph', children: 'not a list' },
      { _type: 'image', src: 'https://img.example.test/a.png' },
      { _type: 'quote', text: 'x', cite: { name: 'y' } },
      { _type: 'table', rows: [['x']] },
      { _type: 'statBar', stats: [{ value: 42 }] },
    ];
    expect(ArticleInput.parse(article({ body: blocks })).body).toEqual(blocks);
    expect(QuestionInput.parse(question({ answer: blocks })).answer).toEqual(blocks);
  });

  it.each([['constructor'], ['__proto__'], ['toString'], ['hasOwnProperty'], ['valueOf']])(
    'accepts %s as an unknown block and inline node type',
    (name) => {
      const blocks = [{ _type: name }, { _type: 'paragraph', children: [{ _type: name, text: 'x' }] }];
      expect(ArticleInput.parse(article({ body: blocks })).body).toEqual(blocks);
    },
  );

  it('rejects a block without _type', () => {
    expect(issuePaths(ArticleInput.safeParse(article({ body: [{ text: 'x' }] })))).toEqual(['body[0]._type']);
  });

  it('rejects a body or answer item that is not an object with a _type (spec §2.4: a block is one)', () => {
    for (const item of ['text', 1, null, true, [{ _type: 'paragraph', text: 'x' }]]) {
      expect(issuePaths(ArticleInput.safeParse(article({ body: [item] })))).toEqual(['body[0]']);
      expect(
        issuePaths(QuestionInput.safeParse(question({ answer: [{ _type: 'paragraph', text: 'x' }, item] }))),
      ).toEqual(['answer[1]']);
    }
    for (const type of [1, '', null, { name: 'heading' }]) {
      expect(issuePaths(ArticleInput.safeParse(article({ body: [{ _type: type, text: 'x' }] })))).toEqual([
        'body[0]._type',
      ]);
    }
    expect(issuePaths(ArticleInput.safeParse(article({ body: { _type: 'paragraph', text: 'x' } })))).toEqual(['body']);
  });

  it('accepts an unknown block type and keeps it exactly as sent', () => {
    const block = { _type: 'carouselWidget', slides: [{ url: 'javascript:x', n: 1 }], nested: { deep: [null, true] } };
    const parsed = ArticleInput.parse(article({ body: [block] }));
    expect(parsed.body).toEqual([block]);
    const parsedQ = QuestionInput.parse(question({ answer: [block] }));
    expect(parsedQ.answer).toEqual([block]);
  });

  it('normalizes updated_at to UTC ISO', () => {
    expect(ArticleInput.parse(article({ updated_at: '2026-11-21T10:30:00+01:00' })).updated_at).toBe(
      '2026-11-21T09:30:00.000Z',
    );
    expect(ArticleInput.parse(article({ updated_at: '2026-11-21T09:30:00Z' })).updated_at).toBe(
      '2026-11-21T09:30:00.000Z',
    );
    expect(QuestionInput.parse(question({ updated_at: '2026-11-20T23:00:00-02:00' })).updated_at).toBe(
      '2026-11-21T01:00:00.000Z',
    );
    expect(issuePaths(ArticleInput.safeParse(article({ updated_at: 'yesterday' })))).toEqual(['updated_at']);
  });

  it('requires canonical_url to be an absolute http(s) URL', () => {
    expect(ArticleInput.safeParse(article({ canonical_url: 'https://example.test/x' })).success).toBe(true);
    expect(ArticleInput.safeParse(article({ canonical_url: 'http://example.test/x' })).success).toBe(true);
    expect(ArticleInput.safeParse(article({ canonical_url: null })).success).toBe(true);
    for (const bad of [
      'ftp://example.test/x',
      'javascript:alert(1)',
      'mailto:a@example.test',
      '/relative',
      'example.test',
    ]) {
      expect(issuePaths(ArticleInput.safeParse(article({ canonical_url: bad })))).toEqual(['canonical_url']);
    }
  });

  it('leaves site_id, of any type, to the site check that runs before it (docs/api.md#authentication)', () => {
    for (const given of [3, 0, -1, 1.5, '3', 'abc', null, true, { id: 3 }, [3]]) {
      expect(ArticleInput.safeParse(article({ site_id: given })).success).toBe(true);
      expect(QuestionInput.safeParse(question({ site_id: given })).success).toBe(true);
      expect(SiteIdBody.parse({ site_id: given, slug: 'Not A Slug', body: 'not blocks' })).toEqual({
        site_id: given,
      });
    }
    expect(SiteIdBody.parse({ title: 'no site_id' })).toEqual({});
    // A body that is no object fails here as it would on the full schema.
    expect(issuePaths(SiteIdBody.safeParse([{ site_id: 1 }]))).toEqual(['']);
  });
});

describe('validationError', () => {
  it('builds the flat error shape with "Required" for a missing field', () => {
    const result = ArticleInput.safeParse({ title: 'T', body: [] });
    expect(result.success).toBe(false);
    const error = validationError('body', given(result.error, 'the error').issues);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(400);
    expect(error.toBody()).toEqual({
      error: 'validation_failed',
      code: 'validation_failed',
      message: 'body.slug: Required',
      issues: [{ path: 'slug', message: 'Required' }],
    });
  });

  it('lists every issue with its path', () => {
    const result = ArticleInput.safeParse({ slug: 'Bad Slug', body: [{ level: 0, text: 'x' }] });
    const body = validationError('body', given(result.error, 'the error').issues).toBody() as {
      issues: { path: string; message: string }[];
      message: string;
    };
    expect(body.issues.map((i) => i.path).sort()).toEqual(['body[0]._type', 'slug', 'title']);
    expect(
      given(
        body.issues.find((i) => i.path === 'title'),
        'the find',
      ).message,
    ).toBe('Required');
    for (const issue of body.issues) expect(body.message).toContain(`body.${issue.path}: ${issue.message}`);
  });
});

describe('buildOpenApi', () => {
  type Doc = {
    openapi: string;
    paths: Record<string, Record<string, unknown>>;
    components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> };
  };
  const doc = buildOpenApi() as unknown as Doc;

  it('is an OpenAPI 3.1.0 document with the publishing and question routes', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths['/articles'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(doc.paths['/questions/{id}/summary']).toHaveProperty('put');
    expect(doc.paths['/questions']).toHaveProperty('post');
  });

  it('describes ArticleInput with slug, title and body required', () => {
    const schema = doc.components.schemas.ArticleInput;
    expect(schema).toBeDefined();
    expect(given(schema, 'the schema').required).toEqual(expect.arrayContaining(['slug', 'title', 'body']));
    expect(given(schema, 'the schema').required).not.toContain('excerpt');
    expect(given(schema, 'the schema').properties).toHaveProperty('slug');
  });

  it('documents site_id as the integer a client sends, optional, and null as accepted for optional fields', () => {
    for (const name of ['ArticleInput', 'QuestionInput']) {
      const schema = doc.components.schemas[name] as {
        required: string[];
        properties: Record<string, { type?: unknown }>;
      };
      expect(schema.properties.site_id).toMatchObject({ type: 'integer' });
      expect(schema.required).not.toContain('site_id');
      expect(given(schema.properties.meta_title, 'the meta_title').type).toEqual(['string', 'null']);
    }
  });

  it('names the server when given one', () => {
    expect(buildOpenApi('https://api.example.test')).toMatchObject({ servers: [{ url: 'https://api.example.test' }] });
    expect(doc).not.toHaveProperty('servers');
  });

  /** Every value of `key` anywhere in the document, with where it is. */
  const valuesOf = (key: string, value: unknown = doc, at = '#'): [string, unknown][] =>
    value && typeof value === 'object'
      ? Object.entries(value).flatMap(([k, v]) => [
          ...(k === key ? [[at, v] as [string, unknown]] : []),
          ...valuesOf(key, v, `${at}/${k}`),
        ])
      : [];

  it('points every $ref at a component of the document', () => {
    const refs = valuesOf('$ref');
    expect(refs.length).toBeGreaterThan(0);
    for (const [at, ref] of refs) {
      expect([at, ref]).toEqual([at, expect.stringMatching(/^#\/components\/schemas\//)]);
      expect([at, doc.components.schemas[(ref as string).slice('#/components/schemas/'.length)]]).toEqual([
        at,
        expect.any(Object),
      ]);
    }
  });

  it('keeps no $defs of its own and no $id (JSON Schema 2020-12 allows no fragment in one)', () => {
    expect(valuesOf('$defs')).toEqual([]);
    expect(valuesOf('$id')).toEqual([]);
  });
});

describe('OpenAPI block shapes', () => {
  it('documents every known block type with its fields, and any other type', () => {
    const doc = buildOpenApi() as any;
    const block = doc.components.schemas.ArticleInput.properties.body.items;
    const types = block.anyOf.map((shape: any) => shape.properties._type.const ?? 'other');
    expect(types).toEqual([
      'heading',
      'paragraph',
      'statBar',
      'list',
      'quote',
      'image',
      'callout',
      'table',
      'code',
      'block',
      'other',
    ]);
    const heading = block.anyOf[0];
    expect(heading.properties.level).toMatchObject({ type: 'integer', minimum: 1, maximum: 6 });
    expect(heading.required).toEqual(['_type', 'level', 'text']);
  });
});

describe('the route table and its documentation', () => {
  const facts = [
    { fn: 'read', method: 'GET', path: '/articles/{id}', auth: true },
    { fn: 'publish', method: 'POST', path: '/articles', auth: true, bodyLimitBytes: 10 },
  ] as const;
  const docs = (keys: string[]) =>
    new Map(keys.map((key) => [key, { summary: key, replies: { 200: { description: 'ok' } } }]));

  it('gives each route of the table its documentation, facts first', () => {
    expect(withDocs(facts, docs(['GET /articles/{id}', 'POST /articles']))).toEqual([
      { ...facts[0], summary: 'GET /articles/{id}', replies: { 200: { description: 'ok' } } },
      { ...facts[1], summary: 'POST /articles', replies: { 200: { description: 'ok' } } },
    ]);
  });

  it('refuses a route without documentation, and documentation of a route the table lacks, naming them', () => {
    expect(() => withDocs(facts, docs(['GET /articles/{id}']))).toThrow(
      'routes.ts has no documentation of POST /articles',
    );
    expect(() => withDocs(facts, docs(['GET /articles/{id}', 'POST /articles', 'DELETE /articles']))).toThrow(
      'routes.ts documents DELETE /articles, which the route table lacks',
    );
  });

  it('documents every route of the service: ROUTES is the route table, in its order', () => {
    expect(ROUTES.map(routeKey)).toEqual(ROUTE_TABLE.map(routeKey));
    expect(ROUTES.every((route) => route.summary.length > 0)).toBe(true);
  });
});

describe('component names', () => {
  it('stay on the schema they name: a check added later makes an unnamed copy, and the OpenAPI document still builds', () => {
    const checked = ArticleInput.check(z.refine(() => true));
    expect(z.globalRegistry.get(checked)?.id).toBeUndefined();
    expect(z.globalRegistry.get(ArticleInput)?.id).toBe('ArticleInput');
    expect(() => buildOpenApi()).not.toThrow();
  });
});
