import { ApiError, ArticleInput, QuestionInput, buildOpenApi, formatPath, validationError } from '@cm/contract';

const article = (extra: Record<string, unknown> = {}) => ({ slug: 'a-page', title: 'T', body: [], ...extra });
const question = (extra: Record<string, unknown> = {}) => ({ slug: 'a-question', question: 'Q?', answer: [], ...extra });

/** The issue paths of a failed parse, as docs/api.md#validation-errors shows (`body[0].level`). */
function issuePaths(result: { success: boolean; error?: { issues: readonly { path: readonly PropertyKey[] }[] } }): string[] {
  expect(result.success).toBe(false);
  return (result.error?.issues ?? []).map((i) => formatPath(i.path));
}

describe('slug', () => {
  const valid = ['a', '0', 'best-running-shoes', 'a1-b2-c3', 'a'.repeat(200)];
  const invalid = ['', 'Best', 'best-Running', 'a--b', '-a', 'a-', 'a/b', 'a b', 'a_b', 'ä', 'a'.repeat(201)];

  it.each(valid.map((s) => [s.length > 20 ? `${s.length} chars` : s, s]))('accepts %j', (_label, slug) => {
    expect(ArticleInput.safeParse(article({ slug })).success).toBe(true);
    expect(QuestionInput.safeParse(question({ slug })).success).toBe(true);
  });

  it.each(invalid.map((s) => [s.length > 20 ? `${s.length} chars` : s, s]))('rejects %j', (_label, slug) => {
    // an empty slug breaks two rules (length and pattern), both on `slug`
    expect([...new Set(issuePaths(ArticleInput.safeParse(article({ slug }))))]).toEqual(['slug']);
    expect([...new Set(issuePaths(QuestionInput.safeParse(question({ slug }))))]).toEqual(['slug']);
  });
});

describe('ArticleInput / QuestionInput', () => {
  it('drops unknown top-level fields, and sources on an article', () => {
    const parsed = ArticleInput.parse(
      article({ sources: [{ id: 'src-1', title: 't', url: 'https://x.example.test', accessed_at: '2026-01-01' }], extra: 1, summary: 's' }),
    );
    expect(parsed).toEqual({ slug: 'a-page', title: 'T', body: [] });
    expect(parsed).not.toHaveProperty('sources');
  });

  it('drops unknown fields and summary from a question, and keeps its sources', () => {
    const src = { id: 'src-1', title: 't', url: 'https://x.example.test', accessed_at: '2026-01-01' };
    const parsed = QuestionInput.parse(question({ sources: [src], summary: 'site owned', whatever: { a: 1 } }));
    expect(parsed).toEqual({ slug: 'a-question', question: 'Q?', answer: [], sources: [src] });
  });

  it('rejects a known block with the wrong shape, naming the issue path', () => {
    expect(issuePaths(ArticleInput.safeParse(article({ body: [{ _type: 'heading', level: 9, text: 'x' }] })))).toEqual(['body[0].level']);
    expect(
      issuePaths(
        ArticleInput.safeParse(
          article({
            body: [
              { _type: 'paragraph', text: 'ok' },
              { _type: 'heading', level: '2', text: 'x' },
            ],
          }),
        ),
      ),
    ).toEqual(['body[1].level']);
    expect(issuePaths(QuestionInput.safeParse(question({ answer: [{ _type: 'list', items: ['a', 2] }] })))).toEqual(['answer[0].items[1]']);
    expect(issuePaths(ArticleInput.safeParse(article({ body: [{ _type: 'callout', tone: 'danger', text: 'x' }] })))).toEqual(['body[0].tone']);
    expect(issuePaths(QuestionInput.safeParse(question({ answer: [{ _type: 'paragraph', children: [{ _type: 'sourceCitation' }] }] })))).toEqual([
      'answer[0].children[0].id',
    ]);
  });

  it('rejects a block without _type', () => {
    expect(issuePaths(ArticleInput.safeParse(article({ body: [{ text: 'x' }] })))).toEqual(['body[0]._type']);
  });

  it('accepts an unknown block type and keeps it exactly as sent', () => {
    const block = { _type: 'carouselWidget', slides: [{ url: 'javascript:x', n: 1 }], nested: { deep: [null, true] } };
    const parsed = ArticleInput.parse(article({ body: [block] }));
    expect(parsed.body).toEqual([block]);
    const parsedQ = QuestionInput.parse(question({ answer: [block] }));
    expect(parsedQ.answer).toEqual([block]);
  });

  it('normalizes updated_at to UTC ISO', () => {
    expect(ArticleInput.parse(article({ updated_at: '2026-11-21T10:30:00+01:00' })).updated_at).toBe('2026-11-21T09:30:00.000Z');
    expect(ArticleInput.parse(article({ updated_at: '2026-11-21T09:30:00Z' })).updated_at).toBe('2026-11-21T09:30:00.000Z');
    expect(QuestionInput.parse(question({ updated_at: '2026-11-20T23:00:00-02:00' })).updated_at).toBe('2026-11-21T01:00:00.000Z');
    expect(issuePaths(ArticleInput.safeParse(article({ updated_at: 'yesterday' })))).toEqual(['updated_at']);
  });

  it('requires canonical_url to be an absolute http(s) URL', () => {
    expect(ArticleInput.safeParse(article({ canonical_url: 'https://example.test/x' })).success).toBe(true);
    expect(ArticleInput.safeParse(article({ canonical_url: 'http://example.test/x' })).success).toBe(true);
    expect(ArticleInput.safeParse(article({ canonical_url: null })).success).toBe(true);
    for (const bad of ['ftp://example.test/x', 'javascript:alert(1)', 'mailto:a@example.test', '/relative', 'example.test']) {
      expect(issuePaths(ArticleInput.safeParse(article({ canonical_url: bad })))).toEqual(['canonical_url']);
    }
  });

  it('rejects a site_id that is not a positive integer', () => {
    expect(ArticleInput.safeParse(article({ site_id: 3 })).success).toBe(true);
    for (const bad of [0, -1, 1.5, '3']) expect(issuePaths(ArticleInput.safeParse(article({ site_id: bad })))).toEqual(['site_id']);
  });
});

describe('validationError', () => {
  it('builds the flat error shape with "Required" for a missing field', () => {
    const result = ArticleInput.safeParse({ title: 'T', body: [] });
    expect(result.success).toBe(false);
    const error = validationError('body', result.error!.issues);
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
    const result = ArticleInput.safeParse({ slug: 'Bad Slug', body: [{ _type: 'heading', level: 0, text: 'x' }] });
    const body = validationError('body', result.error!.issues).toBody() as { issues: { path: string; message: string }[]; message: string };
    expect(body.issues.map((i) => i.path).sort()).toEqual(['body[0].level', 'slug', 'title']);
    expect(body.issues.find((i) => i.path === 'title')!.message).toBe('Required');
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
    expect(schema!.required).toEqual(expect.arrayContaining(['slug', 'title', 'body']));
    expect(schema!.required).not.toContain('excerpt');
    expect(schema!.properties).toHaveProperty('slug');
  });

  it('names the server when given one', () => {
    expect(buildOpenApi('https://api.example.test')).toMatchObject({ servers: [{ url: 'https://api.example.test' }] });
    expect(doc).not.toHaveProperty('servers');
  });
});

describe('OpenAPI block shapes', () => {
  it('documents every known block type with its fields, and any other type', () => {
    const doc = buildOpenApi() as any;
    const block = doc.components.schemas.ArticleInput.properties.body.items;
    const types = block.anyOf.map((shape: any) => shape.properties._type.const ?? 'other');
    expect(types).toEqual(['heading', 'paragraph', 'statBar', 'list', 'quote', 'image', 'callout', 'table', 'other']);
    const heading = block.anyOf[0];
    expect(heading.properties.level).toMatchObject({ type: 'integer', minimum: 1, maximum: 6 });
    expect(heading.required).toEqual(['_type', 'level', 'text']);
  });
});
