import { article, publishArticle, publishQuestion, useTestStack } from '../helpers/local';
import { apiClient, given } from '../helpers/client';

/*
 * The tolerant reader's last gaps (issue 37 point 5): an empty SEO field falls back as a left-out one
 * does, a body after a byte-order mark is JSON, a source date in another form is kept, and the
 * structured data says what a crawler should read.
 */

const t = useTestStack();

const visit = async (type: 'articles' | 'questions', slug: string) =>
  (await t.call('GET', `/sites/${t.siteId}/${type}/${slug}`, undefined, { key: null })).text;
const jsonLdOf = (html: string) =>
  JSON.parse(
    given(given(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(html), 'the match')[1], 'the JSON-LD'),
  );

it('renders an empty meta_title or meta_description as if left out, with a warning for each', async () => {
  const sent = article('empty-seo', { excerpt: 'The excerpt', meta_title: '', meta_description: '  ' });
  const reply = await t.call('POST', '/articles', sent);
  expect(reply.status).toBe(201);
  expect(reply.body.warnings).toEqual(
    expect.arrayContaining([
      { path: 'meta_title', message: expect.stringContaining('the title is used') },
      { path: 'meta_description', message: expect.stringContaining('the excerpt') },
    ]),
  );
  const html = await visit('articles', 'empty-seo');
  expect(html).toContain('<title>Title of empty-seo</title>');
  expect(html).toContain('<meta name="description" content="The excerpt">');
  const stored = await apiClient(t).route('GET /articles/{id}', { params: { id: reply.body.id } });
  expect(stored.body).toMatchObject({ meta_title: 'Title of empty-seo', meta_description: 'The excerpt' });

  const q = await publishQuestion(t, 'empty-seo-q', { meta_title: '' });
  expect(q.body.warnings).toEqual([{ path: 'meta_title', message: expect.stringContaining('the question is used') }]);
  expect(await visit('questions', 'empty-seo-q')).toContain('<title>What is empty-seo-q?</title>');
});

it('accepts a JSON body that starts with a UTF-8 byte-order mark', async () => {
  const res = await fetch(`${t.url}/articles`, {
    method: 'POST',
    headers: { 'x-api-key': t.key, 'content-type': 'application/json' },
    body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(article('with-bom')))]),
  });
  expect(res.status).toBe(201);
  expect(await res.json()).toMatchObject({ slug: 'with-bom', created: true });
});

it('keeps a source date that is not ISO 8601 as sent, with a warning, and still normalizes an ISO one', async () => {
  const sources = [
    { id: 's1', title: 'A guide', url: 'https://example.com/guide', accessed_at: 'Oct 1, 2026' },
    { id: 's2', title: 'A study', url: 'https://example.com/study', accessed_at: '2026-10-01T12:00:00+02:00' },
  ];
  const reply = await publishQuestion(t, 'source-dates', { sources });
  expect(reply.status).toBe(201);
  expect(reply.body.warnings).toEqual([
    { path: 'sources[0].accessed_at', message: expect.stringContaining('not an ISO 8601 date') },
  ]);
  const stored = await apiClient(t).route('GET /questions/{id}', { params: { id: reply.body.id } });
  expect(stored.body.sources.map((s) => s.accessed_at)).toEqual(['Oct 1, 2026', '2026-10-01T10:00:00.000Z']);
  expect(await visit('questions', 'source-dates')).toContain('accessed Oct 1, 2026');
});

it("never dates dateModified before datePublished, and joins a block's spans around a citation as written", async () => {
  const reply = await publishArticle(t, 'old-edit', { updated_at: '2020-03-01T00:00:00Z' });
  const ld = jsonLdOf(await visit('articles', 'old-edit'));
  expect(Date.parse(ld.dateModified)).toBeGreaterThanOrEqual(Date.parse(ld.datePublished));
  expect(ld.dateModified).toBe(ld.datePublished);
  expect(reply.body.updated_at).toBe('2020-03-01T00:00:00.000Z');

  const answer = [
    {
      _type: 'block',
      children: [
        { _type: 'span', text: 'A canoe should fit the paddler' },
        { _type: 'sourceCitation', id: 's1' },
        { _type: 'span', text: '. Measure ' },
        { _type: 'span', text: 'twice', marks: ['strong'] },
        { _type: 'span', text: '.' },
      ],
    },
    { _type: 'paragraph', text: 'Then paddle.' },
  ];
  const sources = [{ id: 's1', title: 'Fit', url: 'https://example.com/fit', accessed_at: '2026-10-01' }];
  await publishQuestion(t, 'spans', { answer, sources });
  // A question with only the editor's answer is an FAQPage of that one question.
  const q = jsonLdOf(await visit('questions', 'spans'));
  expect(q.mainEntity[0].acceptedAnswer.text).toBe('A canoe should fit the paddler. Measure twice. Then paddle.');
});
