import { article, publishArticle, publishQuestion, useTestStack } from '../helpers/local';
import { apiClient, given } from '../helpers/client';

/*
 * Blocks are tolerant (issue 14 point 2, docs/api.md#blocks): only the spec's own requirements refuse a
 * page. A block of a known type in another shape is stored as sent, rendered as far as it safely can
 * be, and reported in `warnings[]`; a `_type` named like an Object.prototype member is an unknown type.
 */

const t = useTestStack();

type Warning = { path: string; message: string };
const paths = (warnings: Warning[]): string[] => warnings.map((w) => w.path);
const visit = (type: 'articles' | 'questions', slug: string) =>
  t.call('GET', `/sites/${t.siteId}/${type}/${slug}`, undefined, { key: null });
const mainOf = (html: string): string =>
  given(given(/<main id="content">([\s\S]*)<\/main>/.exec(html), 'the match')[1], 'the main');

/** Every shape the issue lists, with the path its warning names. */
const OFF_SHAPES: [string, Record<string, unknown>, string][] = [
  [
    'paragraph children that is not an array',
    { _type: 'paragraph', text: 'Lead text', children: 'not a list' },
    'body[0].children',
  ],
  [
    'paragraph children without _type',
    { _type: 'paragraph', children: [{ text: 'no type' }, { _type: 'span', text: 'Span text' }] },
    'body[0].children[0]._type',
  ],
  ['list items as objects', { _type: 'list', items: [{ text: 'object item' }, 'String item'] }, 'body[0].items[0]'],
  ['list style ordered', { _type: 'list', style: 'ordered', items: ['First'] }, 'body[0].style'],
  ['image with src instead of url', { _type: 'image', src: 'https://img.example/a.png', alt: 'A' }, 'body[0].url'],
  ['image without alt', { _type: 'image', url: 'https://img.example/b.png' }, 'body[0].alt'],
  ['callout without tone', { _type: 'callout', text: 'Careful' }, 'body[0].tone'],
  ['quote with an object cite', { _type: 'quote', text: 'Run far', cite: { name: 'A coach' } }, 'body[0].cite'],
  ['table without header', { _type: 'table', rows: [['Cell']] }, 'body[0].header'],
  [
    'sourceCitation without id',
    { _type: 'paragraph', children: [{ _type: 'span', text: 'Claim' }, { _type: 'sourceCitation' }] },
    'body[0].children[1].id',
  ],
  [
    'sourceCitation with a numeric id',
    {
      _type: 'paragraph',
      children: [
        { _type: 'span', text: 'Claim' },
        { _type: 'sourceCitation', id: 1 },
      ],
    },
    'body[0].children[1].id',
  ],
  ['heading level 0', { _type: 'heading', level: 0, text: 'Zero' }, 'body[0].level'],
  ['heading level 7', { _type: 'heading', level: 7, text: 'Seven' }, 'body[0].level'],
  ['heading without level', { _type: 'heading', text: 'None' }, 'body[0].level'],
];

describe('a known block in another shape', () => {
  it.each(OFF_SHAPES)('is stored as sent and warned about: %s', async (_label, block, path) => {
    const slug = `off-${_label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/-$/, '')}`;
    const res = await publishArticle(t, slug, { body: [block] });
    expect(res.status).toBe(201);
    expect(paths(res.body.warnings)).toContain(path);
    const warning = given(
      (res.body.warnings as Warning[]).find((w) => w.path === path),
      'the find',
    );
    expect(warning.message).toMatch(/stored as sent/);
    const page = await apiClient(t).route('GET /articles/{id}', { params: { id: res.body.id } });
    expect(page.body.body).toEqual([block]);

    const visitor = await visit('articles', slug);
    expect(visitor.status).toBe(200);
    expect(visitor.text).not.toContain('[object Object]');
    expect(visitor.text).not.toContain('undefined');
  });

  it('renders each as far as it safely can', async () => {
    await publishArticle(t, 'off-rendered', { body: OFF_SHAPES.map(([, block]) => block) });
    const html = mainOf((await visit('articles', 'off-rendered')).text);
    expect(html).toContain('<p>Lead text</p>');
    expect(html).toContain('<p>Span text</p>');
    expect(html).toContain('<ul><li>object item</li><li>String item</li></ul>'); // an object item renders its text
    expect(html).toContain('<ol><li>First</li></ol>'); // style "ordered" is a numbered list
    // an image needs a url to render; without alt it gets an empty one
    expect(html).not.toContain('img.example/a.png');
    expect(html).toContain('<img src="https://img.example/b.png" alt=""');
    expect(html).toContain('<aside class="callout"><p>Careful</p></aside>');
    expect(html).toContain('<blockquote><p>Run far</p></blockquote>');
    expect(html).toContain('<table><tbody><tr><td>Cell</td></tr></tbody></table>');
    expect(html).toContain('<p>Claim</p>');
    expect(html).toContain('<h1>Zero</h1>');
    expect(html).toContain('<h6>Seven</h6>');
    expect(html).toContain('<h2>None</h2>');
    expect(html).not.toMatch(/<h(?:0|7)|no type|A coach/);
  });

  it('is tolerated in a question answer and in a community answer too', async () => {
    const block = { _type: 'heading', level: 9, text: 'Deep' };
    const res = await publishQuestion(t, 'off-question', { answer: [{ _type: 'paragraph', text: 'ok' }, block] });
    expect(res.status).toBe(201);
    expect(paths(res.body.warnings)).toEqual(['answer[1].level']);
    const community = await apiClient(t).route('POST /questions/{id}/answers', {
      params: { id: res.body.id },
      body: {
        author: 'Ann',
        blocks: [block, { _type: 'list', items: [{ x: 1 }] }],
      },
    });
    expect(community.status).toBe(201);
    const html = (await visit('questions', 'off-question')).text;
    expect(html.match(/<h6>Deep<\/h6>/g)).toHaveLength(2);
  });
});

describe('block types named like Object.prototype members', () => {
  const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

  it('stores them as unknown types, in blocks and in inline nodes', async () => {
    const body = [
      ...NAMES.map((name) => ({ _type: name, text: 'HIDDEN' })),
      {
        _type: 'paragraph',
        children: [{ _type: 'span', text: 'Visible' }, ...NAMES.map((name) => ({ _type: name, text: 'HIDDEN' }))],
      },
    ];
    const res = await publishArticle(t, 'proto-names', { body });
    expect(res.status).toBe(201);
    expect(paths(res.body.warnings)).toEqual([
      ...NAMES.map((_n, i) => `body[${i}]`),
      ...NAMES.map((_n, i) => `body[5].children[${i + 1}]`),
    ]);
    for (const w of res.body.warnings as Warning[]) expect(w.message).toMatch(/unknown/);
    expect((await apiClient(t).route('GET /articles/{id}', { params: { id: res.body.id } })).body.body).toEqual(body);

    const q = await publishQuestion(t, 'proto-names', { answer: body });
    expect(q.status).toBe(201);
    expect(
      (
        await apiClient(t).route('POST /questions/{id}/answers', {
          params: { id: q.body.id },
          body: { author: 'Ann', blocks: body },
        })
      ).status,
    ).toBe(201);

    for (const page of [await visit('articles', 'proto-names'), await visit('questions', 'proto-names')]) {
      expect(page.status).toBe(200);
      expect(page.text).toContain('<p>Visible</p>');
      expect(page.text).not.toContain('HIDDEN');
    }
  });
});

describe('what the spec requires of a block', () => {
  it.each([
    ['a string', 'text', 'body[0]'],
    ['null', null, 'body[0]'],
    ['an array', [{ _type: 'paragraph', text: 'x' }], 'body[0]'],
    ['an object without _type', { text: 'x' }, 'body[0]._type'],
    ['an object with a numeric _type', { _type: 1, text: 'x' }, 'body[0]._type'],
  ])('refuses a body item that is %s with 400 and stores nothing', async (_label, item, path) => {
    const res = await apiClient(t).routeError('POST /articles', { body: article('not-a-block', { body: [item] }) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.issues).toEqual([{ path, message: expect.any(String) }]);
    expect((await t.call('GET', '/articles?slug=not-a-block')).status).toBe(404);
  });
});

describe('Portable Text, as editors that write it send it (audit)', () => {
  it('renders standard blocks, lists, marks, links and citations of a question, with no warning', async () => {
    const target = (await apiClient(t).route('POST /articles', { body: article('pt-target') })).body.id;
    const answer = [
      {
        _type: 'block',
        _key: 'a',
        style: 'h2',
        markDefs: [],
        children: [{ _type: 'span', _key: 'a1', text: 'Why it matters', marks: [] }],
      },
      {
        _type: 'block',
        _key: 'b',
        style: 'normal',
        markDefs: [
          { _key: 'm1', _type: 'link', href: 'https://example.org/study' },
          { _key: 'm2', _type: 'link', href: `page:${target}` },
        ],
        children: [
          { _type: 'span', _key: 'b1', text: 'A ', marks: [] },
          { _type: 'span', _key: 'b2', text: 'study', marks: ['m1', 'strong'] },
          { _type: 'span', _key: 'b3', text: ' and ', marks: [] },
          { _type: 'span', _key: 'b4', text: 'our guide', marks: ['m2'] },
          { _type: 'span', _key: 'b5', text: ' agree', marks: [] },
          { _type: 'sourceCitation', _key: 'b6', id: 'src-1' },
          { _type: 'span', _key: 'b7', text: '.', marks: [] },
        ],
      },
      {
        _type: 'block',
        _key: 'c',
        style: 'normal',
        listItem: 'number',
        level: 1,
        markDefs: [],
        children: [{ _type: 'span', _key: 'c1', text: 'First [src-1]', marks: [] }],
      },
      {
        _type: 'block',
        _key: 'd',
        style: 'normal',
        listItem: 'number',
        level: 1,
        markDefs: [],
        children: [{ _type: 'span', _key: 'd1', text: 'Second [src-2]', marks: ['em'] }],
      },
      {
        _type: 'block',
        _key: 'e',
        style: 'blockquote',
        markDefs: [],
        children: [{ _type: 'span', _key: 'e1', text: 'Quoted', marks: ['code'] }],
      },
    ];
    const sources = [{ id: 'src-1', title: 'Study', url: 'https://example.org/study', accessed_at: '2026-11-01' }];
    const published = await publishQuestion(t, 'pt-question', { answer, sources });
    expect(published.status).toBe(201);
    // A citation of a source the question does not carry is reported, as for any other block.
    expect(paths(published.body.warnings)).toEqual(['answer[3].children[0].text']);

    const html = mainOf((await visit('questions', 'pt-question')).text);
    expect(html).toContain('<h2>Why it matters</h2>');
    expect(html).toContain(
      `<p>A <a href="https://example.org/study"><strong>study</strong></a> and <a href="${t.url}/sites/${t.siteId}/articles/pt-target">our guide</a> agree<sup class="citation"><a href="#source-1">[1]</a></sup>.</p>`,
    );
    expect(html).toContain(
      '<ol><li>First <sup class="citation"><a href="#source-1">[1]</a></sup></li><li><em>Second</em></li></ol>',
    );
    expect(html).toContain('<blockquote><code>Quoted</code></blockquote>');

    // The page link is indexed: when its target goes down, readers lose the link and the read says so.
    await apiClient(t).route('POST /api/content/notify', {
      body: { id: target, type: 'article', action: 'unpublished' },
    });
    await t.stack.drain();
    expect(mainOf((await visit('questions', 'pt-question')).text)).toContain('and our guide agree');
    expect(
      (await apiClient(t).route('GET /questions/{id}', { params: { id: published.body.id } })).body.suppressed_links,
    ).toEqual([{ id: target, type: 'article', since: expect.any(String) }]);
  });
});
