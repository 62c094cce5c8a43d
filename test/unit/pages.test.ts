import crypto from 'node:crypto';
import { ApiError, ArticleInput, type Block, QuestionInput } from '@cm/contract';
import {
  articleDoc,
  checkBodySiteId,
  outgoingLinks,
  pageId,
  pageRecord,
  pageTypeOfId,
  preparePublish,
  publishWarnings,
  questionDoc,
  readerRecord,
  renderedLinkTargets,
} from '@cm/core';
import { given } from '../helpers/client';

const NOW = '2026-11-21T09:30:00.000Z';

const minimalArticle = (extra: Partial<ArticleInput> = {}): ArticleInput => ({
  slug: 'best-running-shoes',
  title: 'Best running shoes',
  body: [],
  ...extra,
});

const minimalQuestion = (extra: Partial<QuestionInput> = {}): QuestionInput => ({
  slug: 'how-hot-is-boiling-water',
  question: 'How hot is boiling water?',
  answer: [],
  ...extra,
});

const paths = (warnings: { path: string }[]): string[] => warnings.map((w) => w.path);

describe('articleDoc defaults', () => {
  it('applies the documented defaults to a minimal article', () => {
    expect(articleDoc(minimalArticle(), NOW)).toEqual({
      slug: 'best-running-shoes',
      title: 'Best running shoes',
      body: [],
      excerpt: null,
      copy: null,
      keywords: [],
      meta_title: 'Best running shoes',
      meta_description: null,
      audience: null,
      goal: null,
      category: null,
      cover_image: null,
      canonical_url: null,
      noindex: false,
      schema_type: 'Article',
      related_article_ids: [],
      related_question_ids: [],
      status: 'published',
      ai_generated: true,
      ai_model: null,
      updated_at: NOW,
    });
  });

  it('defaults meta_description to the excerpt, and keeps an explicit one', () => {
    expect(articleDoc(minimalArticle({ excerpt: 'Card text' }), NOW).meta_description).toBe('Card text');
    expect(articleDoc(minimalArticle({ excerpt: 'Card text', meta_description: 'Meta' }), NOW).meta_description).toBe(
      'Meta',
    );
  });

  it('keeps every field that was sent instead of its default', () => {
    const sent = {
      meta_title: 'Meta title',
      noindex: true,
      schema_type: 'HowTo',
      ai_generated: false,
      status: 'draft' as const,
      updated_at: '2026-01-02T03:04:05.000Z',
      keywords: ['shoes'],
      related_article_ids: ['art_1'],
      related_question_ids: ['qst_1'],
    };
    expect(articleDoc(minimalArticle(sent), NOW)).toMatchObject(sent);
  });
});

describe('an optional field sent as null', () => {
  const ARTICLE_OPTIONAL = [
    ...[
      'excerpt',
      'copy',
      'keywords',
      'meta_title',
      'meta_description',
      'audience',
      'goal',
      'category',
      'cover_image',
      'canonical_url',
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
  ];
  const QUESTION_OPTIONAL = [
    'sources',
    'topics',
    'meta_title',
    'meta_description',
    'related_question_ids',
    'related_article_ids',
    'status',
    'ai_model',
    'updated_at',
  ];
  const article = { slug: 'best-running-shoes', title: 'Best running shoes', body: [] };
  const question = { slug: 'how-hot-is-boiling-water', question: 'How hot is boiling water?', answer: [] };
  const allNull = (fields: string[]) => Object.fromEntries(fields.map((f) => [f, null]));

  it.each(ARTICLE_OPTIONAL)('article %s: is accepted and stored as if left out', (field) => {
    expect(articleDoc(ArticleInput.parse({ ...article, [field]: null }), NOW)).toEqual(
      articleDoc(ArticleInput.parse(article), NOW),
    );
  });

  it.each(QUESTION_OPTIONAL)('question %s: is accepted and stored as if left out', (field) => {
    expect(questionDoc(QuestionInput.parse({ ...question, [field]: null }), NOW)).toEqual(
      questionDoc(QuestionInput.parse(question), NOW),
    );
  });

  it('gets every default at once, meta_description the excerpt', () => {
    const doc = articleDoc(ArticleInput.parse({ ...article, ...allNull(ARTICLE_OPTIONAL), excerpt: 'Card text' }), NOW);
    expect(doc).toEqual(articleDoc(minimalArticle({ excerpt: 'Card text' }), NOW));
    expect(doc.meta_description).toBe('Card text');
    expect(questionDoc(QuestionInput.parse({ ...question, ...allNull(QUESTION_OPTIONAL) }), NOW)).toEqual(
      questionDoc(minimalQuestion(), NOW),
    );
  });
});

describe('questionDoc defaults', () => {
  it('applies the documented defaults to a minimal question', () => {
    expect(questionDoc(minimalQuestion(), NOW)).toEqual({
      slug: 'how-hot-is-boiling-water',
      question: 'How hot is boiling water?',
      answer: [],
      sources: [],
      topics: [],
      meta_title: 'How hot is boiling water?',
      meta_description: null,
      related_question_ids: [],
      related_article_ids: [],
      status: 'published',
      ai_model: null,
      updated_at: NOW,
    });
  });

  it('keeps a sent status, meta_title and updated_at', () => {
    const doc = questionDoc(
      minimalQuestion({ status: 'draft', meta_title: 'MT', updated_at: '2025-05-05T05:05:05.000Z' }),
      NOW,
    );
    expect(doc.status).toBe('draft');
    expect(doc.meta_title).toBe('MT');
    expect(doc.updated_at).toBe('2025-05-05T05:05:05.000Z');
  });
});

describe('pageId / pageTypeOfId', () => {
  it('is stable for the same (site, type, slug)', () => {
    expect(pageId(1, 'article', 'best-running-shoes')).toBe(pageId(1, 'article', 'best-running-shoes'));
  });

  it('differs across site, type and slug', () => {
    const ids = [
      pageId(1, 'article', 'best-running-shoes'),
      pageId(2, 'article', 'best-running-shoes'),
      pageId(11, 'article', 'best-running-shoes'),
      pageId(1, 'question', 'best-running-shoes'),
      pageId(1, 'article', 'best-running-shoe'),
      pageId(1, 'article', 'a'),
      pageId(1, 'article', 'b'),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('hashes a (site, type, slug) once while its id is among those worked out lately, and again after', () => {
    const hashed = jest.spyOn(crypto, 'hash');
    const hashesOf = (name: string) => hashed.mock.calls.filter(([, data]) => data === name).length;
    try {
      const first = pageId(3, 'article', 'kept-id');
      expect(pageId(3, 'article', 'kept-id')).toBe(first);
      expect(hashesOf('3\narticle\nkept-id')).toBe(1);
      // More ids than are kept: the first is worked out again, the same.
      for (let i = 0; i < 1_000; i++) pageId(3, 'article', `other-${i}`);
      expect(pageId(3, 'article', 'kept-id')).toBe(first);
      expect(hashesOf('3\narticle\nkept-id')).toBe(2);
    } finally {
      hashed.mockRestore();
    }
  });

  it('makes ids whose type pageTypeOfId recovers', () => {
    const art = pageId(7, 'article', 'x');
    const qst = pageId(7, 'question', 'x');
    expect(pageTypeOfId(art)).toBe('article');
    expect(pageTypeOfId(qst)).toBe('question');
    expect(art).toMatch(/^art_[a-z2-7]{16}$/);
    expect(qst).toMatch(/^qst_[a-z2-7]{16}$/);
  });

  it.each([
    [''],
    ['art_'],
    ['qst_'],
    ['article'],
    ['art_aaaaaaaaaaaaaaa'], // 15 chars
    ['art_aaaaaaaaaaaaaaaaa'], // 17 chars
    ['art_AAAAAAAAAAAAAAAA'],
    ['art_aaaaaaaaaaaaaaa1'], // 1 is not base32
    ['xyz_aaaaaaaaaaaaaaaa'], // well formed, no such type
    [' art_aaaaaaaaaaaaaaaa'],
    ['art_aaaaaaaaaaaaaaaa\n'],
    ['../art_aaaaaaaaaaaaaaaa'],
  ])('rejects %j', (junk) => {
    expect(pageTypeOfId(junk)).toBeNull();
  });
});

describe('renderedLinkTargets', () => {
  const target = `art_${'c'.repeat(16)}`;
  const blocks = (): Block[] => [
    { _type: 'paragraph', text: `See [this](page:${target}) and [that](page:${target}).` },
    { _type: 'paragraph', text: 'No link here.' },
  ];

  it("works a frozen document's targets out once, and gives them frozen", () => {
    const frozen = Object.freeze(blocks());
    const first = renderedLinkTargets(frozen);
    expect(first).toEqual([target]);
    expect(renderedLinkTargets(frozen)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('works the targets of blocks that may change out at each call', () => {
    const open = blocks();
    expect(renderedLinkTargets(open)).toEqual([target]);
    open.pop();
    open[0] = { _type: 'paragraph', text: 'Now no link.' };
    expect(renderedLinkTargets(open)).toEqual([]);
  });
});

describe('outgoingLinks', () => {
  /** A page id of this service's: `art_` or `qst_` and 16 base32 characters. */
  const art = (c: string) => `art_${c.repeat(16)}`;
  const qst = (c: string) => `qst_${c.repeat(16)}`;

  it('collects page: markers in copy and related ids, deduplicated and sorted', () => {
    const doc = articleDoc(
      minimalArticle({
        copy: `See [z](page:${art('z')}), [a](page:${art('a')}), again [z2](page:${art('z')}) and [ext](https://example.test/x).`,
        related_article_ids: [art('m'), art('a')],
        related_question_ids: [qst('b')],
      }),
      NOW,
    );
    expect(outgoingLinks(doc)).toEqual([art('a'), art('m'), art('z'), qst('b')]);
  });

  it('indexes page links in the blocks too (text markers and Portable Text link annotations), so suppressed_links lists every link readers do not see', () => {
    const body = [
      { _type: 'paragraph', text: `[x](page:${art('b')})` },
      {
        _type: 'block',
        children: [],
        markDefs: [
          { _key: 'k', _type: 'link', href: `page:${art('a')}` },
          { _key: 'w', _type: 'link', href: 'https://web.test' },
        ],
      },
    ];
    const doc = articleDoc(minimalArticle({ body, related_question_ids: [qst('d'), qst('c')] }), NOW);
    expect(outgoingLinks(doc)).toEqual([art('a'), art('b'), qst('c'), qst('d')]);
  });

  it('uses the related ids of a question', () => {
    const doc = questionDoc(
      minimalQuestion({ related_article_ids: [art('b'), art('a')], related_question_ids: [art('a'), qst('c')] }),
      NOW,
    );
    expect(outgoingLinks(doc)).toEqual([art('a'), art('b'), qst('c')]);
  });

  it('leaves out an id that is no page id of ours, of any length: it names no page, and keys hold only page ids', () => {
    const doc = articleDoc(
      minimalArticle({
        copy: `[x](page:${'x'.repeat(3000)}) [y](page:art_short)`,
        related_article_ids: ['editor-42', art('a'), 'ART_AAAAAAAAAAAAAAAA'],
        related_question_ids: ['😀'.repeat(600), `${qst('c')}x`],
      }),
      NOW,
    );
    expect(outgoingLinks(doc)).toEqual([art('a')]);
  });

  it('is empty for a page that links nowhere', () => {
    expect(outgoingLinks(articleDoc(minimalArticle({ copy: 'no links' }), NOW))).toEqual([]);
  });
});

describe('publishWarnings', () => {
  it('has no warnings for a clean article', () => {
    const doc = articleDoc(
      minimalArticle({
        cover_image: 'https://img.example.test/c.png',
        body: [
          { _type: 'heading', level: 2, text: 'Hi' },
          { _type: 'paragraph', text: 'See [x](https://example.test) and [y](page:art_aaaaaaaaaaaaaaaa)' },
          { _type: 'image', url: 'https://img.example.test/a.png', alt: 'a' },
        ],
      }),
      NOW,
    );
    expect(publishWarnings('article', doc)).toEqual([]);
  });

  it('reports an unknown block type by its path, without echoing the type name', () => {
    const doc = articleDoc(
      minimalArticle({
        body: [
          { _type: 'heading', level: 2, text: 'Hi' },
          { _type: 'paragraph', text: 'Text' },
          { _type: 'carouselWidget', items: ['[src-1]'] },
        ],
      }),
      NOW,
    );
    const warnings = publishWarnings('article', doc);
    expect(warnings).toHaveLength(1);
    expect(given(warnings[0], 'the warnings[0]').path).toBe('body[2]');
    expect(given(warnings[0], 'the warnings[0]').message).toMatch(/unknown block type/);
    expect(JSON.stringify(warnings)).not.toContain('carouselWidget');
  });

  it('uses answer[i] paths for questions', () => {
    const doc = questionDoc(minimalQuestion({ answer: [{ _type: 'paragraph', text: 'x' }, { _type: 'poll' }] }), NOW);
    expect(paths(publishWarnings('question', doc))).toEqual(['answer[1]']);
  });

  it('reports an unknown inline node in paragraph children', () => {
    const doc = articleDoc(
      minimalArticle({
        body: [
          {
            _type: 'paragraph',
            children: [
              { _type: 'span', text: 'a' },
              { _type: 'emojiNode', name: 'x' },
            ],
          },
        ],
      }),
      NOW,
    );
    const warnings = publishWarnings('article', doc);
    expect(paths(warnings)).toEqual(['body[0].children[1]']);
    expect(given(warnings[0], 'the warnings[0]').message).toMatch(/unknown inline/);
    expect(JSON.stringify(warnings)).not.toContain('emojiNode');
  });

  it('reports every citation in an article: sourceCitation nodes and literal markers', () => {
    const body: Block[] = [
      {
        _type: 'paragraph',
        children: [
          { _type: 'span', text: 'a ' },
          { _type: 'sourceCitation', id: 'src-1' },
        ],
      },
      { _type: 'list', items: ['fine', 'cited [src-1]'] },
      { _type: 'paragraph', text: 'Text [src-2]' },
    ];
    const warnings = publishWarnings('article', articleDoc(minimalArticle({ body }), NOW));
    expect(paths(warnings).sort()).toEqual(['body[0].children[1]', 'body[1].items[1]', 'body[2].text']);
    for (const w of warnings) expect(w.message).toMatch(/article/);
  });

  it('reports citations of unknown sources in an answer, and not those of known sources', () => {
    const answer: Block[] = [
      {
        _type: 'paragraph',
        children: [
          { _type: 'span', text: 'a ' },
          { _type: 'sourceCitation', id: 'src-1' },
          { _type: 'span', text: ' b ' },
          { _type: 'sourceCitation', id: 'src-9' },
        ],
      },
      { _type: 'list', items: ['known [src-1]', 'unknown [src-3]'] },
      // literal markers follow the citation rules in every text of an answer, not only in list items
      { _type: 'paragraph', text: 'literal [src-5] and [src-1]' },
      { _type: 'heading', level: 2, text: 'Heading [src-6]' },
      { _type: 'table', header: ['h'], rows: [['cell [src-7]']] },
    ];
    const doc = questionDoc(
      minimalQuestion({
        answer,
        sources: [{ id: 'src-1', title: 't', url: 'https://s.example.test', accessed_at: '2026-01-01' }],
      }),
      NOW,
    );
    const warnings = publishWarnings('question', doc);
    expect(paths(warnings).sort()).toEqual([
      'answer[0].children[3]',
      'answer[1].items[1]',
      'answer[2].text',
      'answer[3].text',
      'answer[4].rows[0][0]',
    ]);
    for (const w of warnings) expect(w.message).toMatch(/not in sources/);
    expect(JSON.stringify(warnings)).not.toContain('src-9');
  });

  it('reads a list item sent as an object by its text, as it renders: an unknown citation there is reported', () => {
    const answer: Block[] = [{ _type: 'list', items: [{ text: 'object [src-8]' }, { text: 'known [src-1]' }] }];
    const doc = questionDoc(
      minimalQuestion({
        answer,
        sources: [{ id: 'src-1', title: 't', url: 'https://s.example.test', accessed_at: '2026-01-01' }],
      }),
      NOW,
    );
    const citations = publishWarnings('question', doc).filter((w) => /not in sources/.test(w.message));
    expect(paths(citations)).toEqual(['answer[0].items[0].text']);
  });

  it.each([['javascript:alert(1)'], ['data:image/png;base64,AAAA'], ['ftp://files.example.test/a.png']])(
    'reports an image with the disallowed URL %s',
    (url) => {
      const doc = articleDoc(
        minimalArticle({
          body: [
            { _type: 'paragraph', text: 'x' },
            { _type: 'image', url, alt: 'a' },
          ],
        }),
        NOW,
      );
      const warnings = publishWarnings('article', doc);
      expect(paths(warnings)).toEqual(['body[1].url']);
      expect(given(warnings[0], 'the warnings[0]').message).toMatch(/scheme/);
      expect(JSON.stringify(warnings)).not.toContain(url);
    },
  );

  it('reports each way a known block differs from the shape that renders, by path, without echoing values', () => {
    const body = [
      { _type: 'heading', level: 7, text: 'SECRET-1' },
      { _type: 'heading', text: 'x' },
      { _type: 'paragraph', children: 'SECRET-2' },
      { _type: 'paragraph', children: [{ text: 'SECRET-3' }, 'SECRET-4', { _type: 'sourceCitation' }] },
      { _type: 'list', style: 'ordered', items: [{ text: 'SECRET-5' }, 'ok'] },
      { _type: 'image', src: 'https://img.example.test/a.png' },
      { _type: 'callout', text: 'x' },
      { _type: 'quote', text: 'x', cite: { name: 'SECRET-6' } },
      { _type: 'table', rows: [['x']] },
      { _type: 'paragraph' },
    ];
    const warnings = publishWarnings('article', articleDoc(minimalArticle({ body }), NOW));
    expect(paths(warnings)).toEqual([
      'body[0].level',
      'body[1].level',
      'body[2].children',
      'body[3].children[0]._type',
      'body[3].children[1]',
      'body[3].children[2].id',
      'body[4].style',
      'body[4].items[0]',
      'body[5].url',
      'body[5].alt',
      'body[6].tone',
      'body[7].cite',
      'body[8].header',
      'body[9]',
    ]);
    for (const w of warnings) expect(w.message).toMatch(/stored as sent, rendered as far as it can be/);
    expect(JSON.stringify(warnings)).not.toMatch(/SECRET|ordered|img\.example/);
  });

  it('reports a relative image URL once, for its shape, and a numeric citation id that matches no source', () => {
    const doc = questionDoc(
      minimalQuestion({
        answer: [
          { _type: 'image', url: '/a.png', alt: 'a' },
          { _type: 'paragraph', children: [{ _type: 'sourceCitation', id: 1 }] },
        ],
      }),
      NOW,
    );
    const warnings = publishWarnings('question', doc);
    expect(paths(warnings)).toEqual(['answer[0].url', 'answer[1].children[0].id', 'answer[1].children[0]']);
    expect(given(warnings[2], 'the warnings[2]').message).toMatch(/not in sources/);
  });

  it.each([['constructor'], ['__proto__'], ['toString'], ['hasOwnProperty'], ['valueOf']])(
    'reports a %s block or inline node as an unknown type',
    (name) => {
      const doc = articleDoc(
        minimalArticle({ body: [{ _type: name }, { _type: 'paragraph', children: [{ _type: name }] }] }),
        NOW,
      );
      const warnings = publishWarnings('article', doc);
      expect(paths(warnings)).toEqual(['body[0]', 'body[1].children[0]']);
      for (const w of warnings) expect(w.message).toMatch(/unknown/);
    },
  );

  it('reports a disallowed cover image and a disallowed link scheme in text', () => {
    const doc = articleDoc(
      minimalArticle({
        cover_image: 'javascript:alert(1)',
        body: [{ _type: 'list', items: ['[x](javascript:void)'] }],
      }),
      NOW,
    );
    expect(paths(publishWarnings('article', doc)).sort()).toEqual(['body[0].items[0]', 'cover_image']);
  });
});

describe('checkBodySiteId', () => {
  it.each([
    [2],
    [0],
    [-1],
    [1.5],
    [1e300],
    ['2'],
    ['01'],
    [' 1'],
    ['1.0'],
    ['abc'],
    [''],
    [true],
    [false],
    [{}],
    [{ site_id: 1 }],
    [[1]],
  ])('throws site_mismatch (403) for a site_id of %j on site 1', (given) => {
    const run = () => checkBodySiteId(1, given);
    expect(run).toThrow(ApiError);
    try {
      run();
    } catch (error) {
      expect((error as ApiError).code).toBe('site_mismatch');
      expect((error as ApiError).status).toBe(403);
      expect((error as ApiError).toBody()).toMatchObject({ error: 'site_mismatch', code: 'site_mismatch' });
    }
  });

  it.each([[5], ['5'], [undefined], [null]])(
    'accepts a site_id of %j on site 5 (null is the same as leaving it out)',
    (given) => {
      expect(() => checkBodySiteId(5, given)).not.toThrow();
    },
  );
});

describe('preparePublish', () => {
  it('returns the page id, the stored doc, its links and its warnings', () => {
    const [P, Q] = ['art_pppppppppppppppp', 'qst_qqqqqqqqqqqqqqqq'];
    const prepared = preparePublish(
      5,
      {
        type: 'article',
        value: minimalArticle({ copy: `[a](page:${Q})`, related_article_ids: [P], body: [{ _type: 'mystery' }] }),
      },
      NOW,
    );
    expect(prepared.id).toBe(pageId(5, 'article', 'best-running-shoes'));
    expect(prepared.doc).toEqual(
      articleDoc(
        minimalArticle({ copy: `[a](page:${Q})`, related_article_ids: [P], body: [{ _type: 'mystery' }] }),
        NOW,
      ),
    );
    expect(prepared.links).toEqual([P, Q]);
    expect(paths(prepared.warnings)).toEqual(['body[0]']);

    const q = preparePublish(5, { type: 'question', value: minimalQuestion() }, NOW);
    expect(q.id).toBe(pageId(5, 'question', 'how-hot-is-boiling-water'));
    expect(q.doc.status).toBe('published');
  });
});

describe('pageRecord', () => {
  const state = {
    site_id: 1,
    id: 'art_aaaaaaaaaaaaaaaa',
    created_at: NOW,
    updated_at: NOW,
    status: 'published' as const,
    deleted: false,
    suppressed: [],
    relinked_at: null,
    summary: 'kept',
    community_answers: [],
  };

  it('is live only when published and not deleted', () => {
    const live = (status: 'draft' | 'published', deleted: boolean) =>
      pageRecord({ ...state, type: 'article', status, deleted, doc: articleDoc(minimalArticle({ status }), NOW) }).live;
    expect(live('published', false)).toBe(true);
    expect(live('draft', false)).toBe(false);
    expect(live('published', true)).toBe(false);
  });

  it('adds summary and community answers to questions only', () => {
    const q = pageRecord({ ...state, type: 'question', doc: questionDoc(minimalQuestion(), NOW) });
    expect(q).toMatchObject({ type: 'question', summary: 'kept', community_answers: [], site_id: 1, created_at: NOW });
    const a = pageRecord({ ...state, type: 'article', doc: articleDoc(minimalArticle(), NOW) });
    expect(a.type).toBe('article');
    expect(a).not.toHaveProperty('summary');
    expect(a).not.toHaveProperty('community_answers');
  });

  it("reports the current status and updated_at over the published document's", () => {
    const doc = articleDoc(minimalArticle({ status: 'published', updated_at: '2026-01-01T00:00:00.000Z' }), NOW);
    const page = pageRecord({
      ...state,
      type: 'article',
      doc,
      status: 'draft',
      updated_at: '2026-02-02T00:00:00.000Z',
    });
    expect(page).toMatchObject({ status: 'draft', live: false, updated_at: '2026-02-02T00:00:00.000Z' });
  });

  const copy =
    'A [one](page:art_aaaaaaaaaaaaaaab)\r\n\tB [two](page:art_aaaaaaaaaaaaaaac) [one again](page:art_aaaaaaaaaaaaaaab) [x](https://x.test)';
  const linking = articleDoc(
    minimalArticle({
      copy,
      related_article_ids: ['art_aaaaaaaaaaaaaaab', 'art_aaaaaaaaaaaaaaac'],
      related_question_ids: ['qst_aaaaaaaaaaaaaaab'],
    }),
    NOW,
  );
  const suppressed = [
    { id: 'art_aaaaaaaaaaaaaaab', since: '2026-03-01T00:00:00.000Z' },
    { id: 'qst_aaaaaaaaaaaaaaab', since: null },
  ];

  it('shows readers the page without links to suppressed pages, and leaves the rest byte for byte', () => {
    const page = readerRecord({ ...state, type: 'article', doc: linking, suppressed });
    if (page.type !== 'article') throw new Error('article expected');
    expect(page.copy).toBe('A one\r\n\tB [two](page:art_aaaaaaaaaaaaaaac) one again [x](https://x.test)');
    expect(page.related_article_ids).toEqual(['art_aaaaaaaaaaaaaaac']);
    expect(page.related_question_ids).toEqual([]);
    expect(readerRecord({ ...state, type: 'article', doc: linking })).toMatchObject({ copy });
  });

  it('returns the document as sent, and says which links readers do not see and since when', () => {
    const page = pageRecord({
      ...state,
      type: 'article',
      doc: linking,
      suppressed,
      relinked_at: '2026-03-01T00:00:00.000Z',
    });
    if (page.type !== 'article') throw new Error('article expected');
    expect(page.copy).toBe(copy);
    expect(page.related_article_ids).toEqual(['art_aaaaaaaaaaaaaaab', 'art_aaaaaaaaaaaaaaac']);
    expect(page.related_question_ids).toEqual(['qst_aaaaaaaaaaaaaaab']);
    expect(page.suppressed_links).toEqual([
      { id: 'art_aaaaaaaaaaaaaaab', type: 'article', since: '2026-03-01T00:00:00.000Z' },
      { id: 'qst_aaaaaaaaaaaaaaab', type: 'question', since: null },
    ]);
    expect(page.relinked_at).toBe('2026-03-01T00:00:00.000Z');
  });

  it('says when the site deleted the page', () => {
    const doc = articleDoc(minimalArticle(), NOW);
    expect(pageRecord({ ...state, type: 'article', doc, status: 'draft', deleted: true })).toMatchObject({
      deleted: true,
      live: false,
      status: 'draft',
    });
    expect(pageRecord({ ...state, type: 'article', doc, status: 'draft' })).toMatchObject({
      deleted: false,
      live: false,
    });
  });
});
