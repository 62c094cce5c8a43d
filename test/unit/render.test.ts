import { createHash } from 'node:crypto';
import type {
  ArticleInput,
  ArticleRecord,
  Block,
  CommunityAnswer,
  PageDoc,
  PageRecord,
  QuestionInput,
  QuestionRecord,
  KnownBlockType,
  Source,
} from '@cm/contract';
import {
  articleDoc,
  BLOCK_TYPES,
  PALETTES,
  preparePublish,
  THEME_STYLE_SOURCE,
  pageId,
  pageRecord,
  questionDoc,
  renderArticle,
  renderPage,
  renderQuestion,
  type RenderOptions,
  renderUnavailable,
} from '@cm/core';
import { citeAfter } from '../../packages/core/src/citation';
import { given } from '../helpers/client';

/*
 * Visitor pages (docs/api.md#visitor-pages, spec §2.5): pure rendering of hand-built records.
 */

const NOW = '2026-11-21T09:30:00.000Z';
const CREATED = '2026-11-20T08:00:00.000Z';
const SITE = 1;
const BASE = 'https://pages.example.test';
const XSS = '<script>alert(1)</script>';
const ESCAPED_XSS = '&lt;script&gt;alert(1)&lt;/script&gt;';

const LIVE_ID = pageId(SITE, 'article', 'live-page');
const DEAD_ID = pageId(SITE, 'article', 'dead-page');
const LIVE_URL = `${BASE}/sites/1/articles/live-page`;

const LIVE_PAGE = { url: LIVE_URL, title: 'The live page' };

const options = (overrides: Partial<RenderOptions> = {}): RenderOptions => ({
  pageUrl: `${BASE}/sites/1/articles/the-page`,
  site: { name: 'Run & Co', root: `${BASE}/sites/${SITE}`, locale: 'WW/en', icon: `${BASE}/favicon.ico` },
  linkTarget: (id) => (id === LIVE_ID ? LIVE_PAGE : null),
  ...overrides,
});

function record(
  type: 'article' | 'question',
  doc: PageDoc,
  site: { summary?: string | null; community_answers?: CommunityAnswer[] } = {},
): PageRecord {
  return pageRecord({
    site_id: SITE,
    type,
    id: pageId(SITE, type, doc.slug),
    doc,
    status: doc.status,
    created_at: CREATED,
    updated_at: doc.updated_at,
    deleted: false,
    suppressed: [],
    relinked_at: null,
    summary: site.summary ?? null,
    community_answers: site.community_answers ?? [],
  });
}

function article(input: Partial<ArticleInput> = {}): ArticleRecord {
  const page = record('article', articleDoc({ slug: 'the-page', title: 'The title', body: [], ...input }, NOW));
  if (page.type !== 'article') throw new Error('expected an article record');
  return page;
}

function question(
  input: Partial<QuestionInput> = {},
  site: { summary?: string | null; community_answers?: CommunityAnswer[] } = {},
): QuestionRecord {
  const doc = questionDoc({ slug: 'the-question', question: 'The question?', answer: [], ...input }, NOW);
  const page = record('question', doc, site);
  if (page.type !== 'question') throw new Error('expected a question record');
  return page;
}

const source = (id: string, extra: Partial<Source> = {}): Source => ({
  id,
  title: `Title of ${id}`,
  url: `https://sources.example.test/${id}`,
  accessed_at: '2026-11-01',
  ...extra,
});

const span = (text: string): Block => ({ _type: 'span', text });
const cite = (id: string): Block => ({ _type: 'sourceCitation', id });
const para = (...children: Block[]): Block => ({ _type: 'paragraph', children });
const textPara = (text: string): Block => ({ _type: 'paragraph', text });
const list = (items: string[], style: 'bullet' | 'number' = 'bullet'): Block => ({ _type: 'list', style, items });

/** The rendered editor's answer (after its heading, to the end of its section). */
function answerHtml(html: string): string {
  const m = /<section class="part answer"[^>]*>\n<h2[^>]*>Answer<\/h2>([\s\S]*?)<\/section>/.exec(html);
  if (!m) throw new Error(`no answer section in:\n${html}`);
  return given(m[1], 'the m[1]');
}

/** The rendered page body (inside `<main>`). */
function mainHtml(html: string): string {
  const m = /<main id="content">([\s\S]*)<\/main>/.exec(html);
  if (!m) throw new Error(`no main in:\n${html}`);
  return given(m[1], 'the m[1]');
}

function headHtml(html: string): string {
  const m = /<head>([\s\S]*)<\/head>/.exec(html);
  if (!m) throw new Error(`no head in:\n${html}`);
  return given(m[1], 'the m[1]');
}

/** Every JSON-LD element's content, parsed. */
function jsonLd(html: string): Record<string, unknown>[] {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map(
    (m) => JSON.parse(given(m[1], 'the m[1]')) as Record<string, unknown>,
  );
}

/** Every href/src attribute value in the page. */
function urlAttributes(html: string): string[] {
  return [...html.matchAll(/\b(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? '',
  );
}

function expectOnlySafeUrls(html: string): void {
  for (const url of urlAttributes(html)) {
    expect(url).toMatch(/^(?:https?:|mailto:|#)/i);
  }
  expect(html).not.toMatch(/(?:href|src)\s*=\s*["']?\s*(?:javascript|data|vbscript):/i);
}

const count = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

describe('the citation rule, written once (core/src/citation.ts)', () => {
  const LINK = '<sup class="citation"><a href="#source-1">[1]</a></sup>';

  it('appends a known citation to what comes before it, and drops the spaces and tabs before an unknown one', () => {
    expect(citeAfter('Water boils ', LINK)).toBe(`Water boils ${LINK}`);
    expect(citeAfter('Water boils \t ', null)).toBe('Water boils');
    expect(citeAfter('Water boils', null)).toBe('Water boils');
    expect(citeAfter(' \t', null)).toBe('');
    // Only spaces and tabs: a line break or any other character stays.
    expect(citeAfter('Water boils\n', null)).toBe('Water boils\n');
    expect(citeAfter('Water boils.', null)).toBe('Water boils.');
  });

  it('gives the same paragraph from a literal [src-n], a paragraph node and a Portable Text block', () => {
    const ways = (id: string): Block[] => [
      textPara(`Water boils [${id}].`),
      para(span('Water boils '), cite(id), span('.')),
      { _type: 'block', style: 'normal', markDefs: [], children: [span('Water boils '), cite(id), span('.')] },
    ];
    const answer = (id: string) =>
      answerHtml(renderQuestion(question({ sources: [source('src-1')], answer: ways(id) }), options()));
    expect(count(answer('src-1'), `<p>Water boils ${LINK}.</p>`)).toBe(3);
    expect(count(answer('src-9'), '<p>Water boils.</p>')).toBe(3);
  });
});

describe('citation rules (spec §2.5)', () => {
  it('renders a sourceCitation node with a matching source as a link numbered by its position in sources', () => {
    const page = question({
      sources: [source('src-3'), source('src-1')],
      answer: [para(span('Water boils at 100 C'), cite('src-1'), span('.'))],
    });
    const html = renderQuestion(page, options());
    const answer = answerHtml(html);
    expect(answer).toContain('<p>Water boils at 100 C<sup class="citation"><a href="#source-2">[2]</a></sup>.</p>');
    // the sources list carries the anchors, in the order of `sources`
    expect(html).toMatch(/<li id="source-1">[^]*Title of src-3[^]*<\/li><li id="source-2">[^]*Title of src-1/);
    expect(html).toContain('href="https://sources.example.test/src-1"');
    // every citation link points at an anchor that exists
    for (const m of html.matchAll(/href="#(source-\d+)"/g)) expect(html).toContain(`id="${m[1]}"`);
  });

  it('drops a sourceCitation node without a matching source together with the space before it', () => {
    const page = question({
      sources: [source('src-1')],
      answer: [para(span('Water boils '), cite('src-9'), span('.'))],
    });
    const answer = answerHtml(renderQuestion(page, options()));
    expect(answer).toContain('<p>Water boils.</p>');
    expect(answer).not.toContain('citation');
    expect(answer).not.toContain('src-9');
    expect(answer).not.toContain('[9]');
  });

  it('resolves a literal [src-n] in a list item of an answer when the source exists', () => {
    const page = question({
      sources: [source('src-1'), source('src-2')],
      answer: [list(['Cushioned soles [src-2]'])],
    });
    const answer = answerHtml(renderQuestion(page, options()));
    expect(answer).toContain('<li>Cushioned soles <sup class="citation"><a href="#source-2">[2]</a></sup></li>');
    expect(answer).not.toContain('[src-2]');
  });

  it('drops a literal [src-n] in a list item of an answer, and the space before it, when no source has that id', () => {
    const page = question({
      sources: [source('src-1')],
      answer: [list(['Item [src-7]', 'Other\t[src-8] item'])],
    });
    const answer = answerHtml(renderQuestion(page, options()));
    expect(answer).toContain('<li>Item</li>');
    expect(answer).toContain('<li>Other item</li>');
    expect(answer).not.toContain('src-7');
    expect(answer).not.toContain('citation');
  });

  it('applies the citation rules to a literal [src-n] in any text of an answer, not only in list items', () => {
    const page = question({
      sources: [source('src-1')],
      answer: [
        textPara('See [src-1] for details [src-7].'),
        { _type: 'heading', level: 2, text: 'Heading [src-1] [src-7]' },
        { _type: 'callout', tone: 'info', text: 'Callout [src-7]' },
      ],
    });
    const answer = answerHtml(renderQuestion(page, options()));
    expect(answer).toContain('<p>See <sup class="citation"><a href="#source-1">[1]</a></sup> for details.</p>');
    expect(answer).toContain('<h2>Heading <sup class="citation"><a href="#source-1">[1]</a></sup></h2>');
    expect(answer).toContain('<p>Callout</p>');
    expect(answer).not.toContain('[src-');
  });

  it('drops every literal [src-n] of a community answer, which has no sources', () => {
    const community: CommunityAnswer[] = [
      { answer_id: 'c1', author: 'Ann', blocks: [textPara('Mine [src-1].')], created_at: NOW },
    ];
    const html = renderQuestion(question({ sources: [source('src-1')] }, { community_answers: community }), options());
    expect(mainHtml(html)).toContain('<p>Mine.</p>');
  });

  it('renders no citation markers and no sources in an article', () => {
    const page = article({
      body: [
        para(span('Water boils'), cite('src-1'), span('.')),
        list(['Item [src-1]']),
        textPara('Boiling [src-1] point'),
      ],
    });
    // an article never carries sources; even a record that has some must not show them
    const withSources = { ...page, sources: [source('src-1')] } as ArticleRecord;
    for (const p of [page, withSources]) {
      const body = mainHtml(renderArticle(p, options()));
      expect(body).toContain('<p>Water boils.</p>');
      expect(body).toContain('<li>Item</li>');
      expect(body).toContain('<p>Boiling point</p>');
      expect(body).not.toContain('[src-');
      expect(body).not.toContain('citation');
      expect(body).not.toContain('#source-');
      expect(body).not.toContain('class="sources"');
      expect(body).not.toContain('Title of src-1');
    }
  });

  it('renders no sources section for a question without sources', () => {
    const html = renderQuestion(question({ answer: [textPara('Plain')] }), options());
    expect(html).not.toContain('class="sources"');
  });
});

describe('links in text', () => {
  it('renders [text](page:<id>) as a link when linkTarget gives a URL and as plain escaped text when it gives null', () => {
    const linkTarget = jest.fn((id: string) => (id === LIVE_ID ? LIVE_PAGE : null));
    const page = article({
      body: [textPara(`Read [the guide](page:${LIVE_ID}) or [old <b> & co](page:${DEAD_ID}) now`)],
    });
    const body = mainHtml(renderArticle(page, options({ linkTarget })));
    expect(body).toContain(`<p>Read <a href="${LIVE_URL}">the guide</a> or old &lt;b&gt; &amp; co now</p>`);
    expect(body).not.toContain('page:');
    expect(linkTarget).toHaveBeenCalledWith(LIVE_ID);
    expect(linkTarget).toHaveBeenCalledWith(DEAD_ID);
  });

  it('renders page links inside list items, table cells and spans of an answer', () => {
    const page = question({
      answer: [
        list([`See [live](page:${LIVE_ID})`, `See [gone](page:${DEAD_ID})`]),
        { _type: 'table', header: ['H'], rows: [[`[cell](page:${LIVE_ID})`]] },
        para(span(`In [a span](page:${LIVE_ID}).`)),
      ],
    });
    const answer = answerHtml(renderQuestion(page, options()));
    expect(answer).toContain(`<li>See <a href="${LIVE_URL}">live</a></li>`);
    expect(answer).toContain('<li>See gone</li>');
    expect(answer).toContain(`<td><a href="${LIVE_URL}">cell</a></td>`);
    expect(answer).toContain(`<p>In <a href="${LIVE_URL}">a span</a>.</p>`);
  });

  it('renders http(s) and mailto markdown links as links', () => {
    const page = article({
      body: [textPara('Go [there](https://x.example.test/a?b=1&c=2) or [mail](mailto:me@example.test)')],
    });
    const body = mainHtml(renderArticle(page, options()));
    expect(body).toContain('<a href="https://x.example.test/a?b=1&amp;c=2">there</a>');
    expect(body).toContain('<a href="mailto:me@example.test">mail</a>');
  });

  it.each([
    ['javascript:alert(1)'],
    ['javascript:alert'],
    ['JavaScript:alert'],
    ['data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='],
    ['vbscript:msgbox'],
    ['/relative/path'],
  ])('does not render a link to %s', (target) => {
    const page = article({ body: [textPara(`Click [here](${target}) please`)] });
    const body = mainHtml(renderArticle(page, options()));
    expect(body).not.toMatch(/<a[\s>]/);
    expect(body).toContain('here');
    expectOnlySafeUrls(body);
  });

  it('cannot break out of the href attribute of a link', () => {
    const page = article({
      body: [textPara('[x](https://x.example.test/"onmouseover="alert) [y](https://x.example.test/\'onfocus=\'alert)')],
    });
    const body = mainHtml(renderArticle(page, options()));
    expect(body).toMatch(/<a href="https:\/\/x\.example\.test\/[^"]*">x<\/a>/);
    expect(body).toMatch(/<a href="https:\/\/x\.example\.test\/[^"]*">y<\/a>/);
    expect(body).not.toContain('"onmouseover');
    expect(body).not.toContain("'onfocus");
    // each anchor carries one attribute, its href; nothing leaked out of the quotes
    const anchors = [...body.matchAll(/<a\s[^>]*>/g)].map((m) => m[0]);
    expect(anchors).toHaveLength(2);
    for (const tag of anchors) expect(tag).toMatch(/^<a href="[^"]*">$/);
  });
});

describe('hostile input', () => {
  const sourcesOk = [source('src-1')];
  const cases: [string, () => string][] = [
    ['article title', () => renderArticle(article({ title: XSS }), options())],
    ['meta_title', () => renderArticle(article({ meta_title: XSS }), options())],
    ['heading', () => renderArticle(article({ body: [{ _type: 'heading', level: 2, text: XSS }] }), options())],
    ['paragraph text', () => renderArticle(article({ body: [textPara(XSS)] }), options())],
    ['paragraph span', () => renderArticle(article({ body: [para(span(XSS))] }), options())],
    ['list item', () => renderArticle(article({ body: [list([XSS])] }), options())],
    [
      'answer list item',
      () => renderQuestion(question({ answer: [list([`${XSS} [src-1]`])], sources: sourcesOk }), options()),
    ],
    ['table header', () => renderArticle(article({ body: [{ _type: 'table', header: [XSS], rows: [] }] }), options())],
    [
      'table cell',
      () => renderArticle(article({ body: [{ _type: 'table', header: ['h'], rows: [[XSS]] }] }), options()),
    ],
    [
      'stat label',
      () => renderArticle(article({ body: [{ _type: 'statBar', stats: [{ value: '1', label: XSS }] }] }), options()),
    ],
    [
      'stat value',
      () => renderArticle(article({ body: [{ _type: 'statBar', stats: [{ value: XSS, label: 'l' }] }] }), options()),
    ],
    ['quote text', () => renderArticle(article({ body: [{ _type: 'quote', text: XSS }] }), options())],
    ['quote cite', () => renderArticle(article({ body: [{ _type: 'quote', text: 'q', cite: XSS }] }), options())],
    [
      'image alt',
      () =>
        renderArticle(
          article({ body: [{ _type: 'image', url: 'https://img.example.test/a.png', alt: XSS }] }),
          options(),
        ),
    ],
    [
      'image caption',
      () =>
        renderArticle(
          article({ body: [{ _type: 'image', url: 'https://img.example.test/a.png', alt: 'a', caption: XSS }] }),
          options(),
        ),
    ],
    ['callout', () => renderArticle(article({ body: [{ _type: 'callout', tone: 'tip', text: XSS }] }), options())],
    ['page link text', () => renderArticle(article({ body: [textPara(`[${XSS}](page:${LIVE_ID})`)] }), options())],
    ['meta_description', () => renderArticle(article({ meta_description: XSS }), options())],
    ['question', () => renderQuestion(question({ question: XSS }), options())],
    ['source title', () => renderQuestion(question({ sources: [source('src-1', { title: XSS })] }), options())],
    [
      'source accessed_at',
      () => renderQuestion(question({ sources: [source('src-1', { accessed_at: XSS })] }), options()),
    ],
    ['summary', () => renderQuestion(question({}, { summary: XSS }), options())],
    [
      'community answer',
      () =>
        renderQuestion(
          question(
            {},
            { community_answers: [{ answer_id: 'c1', author: XSS, blocks: [textPara(XSS)], created_at: NOW }] },
          ),
          options(),
        ),
    ],
  ];

  it.each(cases)('escapes <script> in the %s', (_where, render) => {
    const html = render();
    expect(html).not.toContain('<script>');
    expect(html).toContain(ESCAPED_XSS);
  });

  it('escapes quotes so an attribute cannot be closed (image alt, meta description)', () => {
    const payload = '" onerror="alert(1)';
    const html = renderArticle(
      article({
        meta_description: payload,
        body: [{ _type: 'image', url: 'https://img.example.test/a.png', alt: payload }],
      }),
      options(),
    );
    expect(html).not.toContain('" onerror="');
    expect(html).toContain('alt="&quot; onerror=&quot;alert(1)"');
    expect(html).toContain('content="&quot; onerror=&quot;alert(1)"');
  });

  it.each([['javascript:alert(1)'], ['data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==']])(
    'never renders %s as an image url, cover image, canonical url or source url',
    (bad) => {
      const art = renderArticle(
        article({
          cover_image: bad,
          canonical_url: bad,
          body: [{ _type: 'image', url: bad, alt: 'pic', caption: 'cap' }, textPara('after')],
        }),
        options(),
      );
      expectOnlySafeUrls(art);
      expect(art).not.toContain(bad);
      expect(mainHtml(art)).not.toContain('<img');
      expect(art).toContain(`<link rel="canonical" href="${options().pageUrl}">`);
      expect(jsonLd(art)[0]).not.toHaveProperty('image');

      const qst = renderQuestion(
        question({ sources: [source('src-1', { url: bad, title: 'Bad source' })], answer: [list(['x [src-1]'])] }),
        options(),
      );
      expectOnlySafeUrls(qst);
      expect(qst).not.toContain(bad);
      expect(qst).toContain('Bad source'); // the source is still listed, without a link
    },
  );

  it('keeps a title with </script> inside the JSON-LD element of an article', () => {
    const title = `Shoes </script><script>alert(1)</script> & more`;
    const html = renderArticle(article({ title, meta_description: '</script>' }), options());
    // The page's own element and its BreadcrumbList's.
    expect(count(html, '<script')).toBe(2);
    expect(count(html, '</script>')).toBe(2);
    const [ld] = jsonLd(html);
    expect(ld).toBeDefined();
    expect(given(ld, 'the ld').headline).toBe(title);
    expect(given(ld, 'the ld').description).toBe('</script>');
  });

  it('keeps a question with </script> inside the JSON-LD element of a question page', () => {
    const text = `Why </script><script>alert(1)</script>?`;
    const html = renderQuestion(
      question({ question: text, answer: [textPara(`Because </script><!-- \u2028`)] }),
      options(),
    );
    expect(count(html, '<script')).toBe(2);
    expect(count(html, '</script>')).toBe(2);
    expect(html).not.toContain('<!--');
    const [ld] = jsonLd(html);
    expect(given(ld, 'the ld').name).toBe(text);
  });
});

describe('blocks', () => {
  it('renders nothing visible for an unknown block type and never echoes its name', () => {
    const known = [textPara('Before'), textPara('After')];
    const unknown: Block = {
      _type: 'marqueeWidget',
      text: 'VISIBLE-TEXT',
      html: '<b>bold</b>',
      url: 'https://x.example.test',
    };
    const without = renderArticle(article({ body: known }), options());
    const withUnknown = renderArticle(
      article({ body: [given(known[0], 'the known[0]'), unknown, given(known[1], 'the known[1]')] }),
      options(),
    );
    expect(withUnknown).not.toContain('marqueeWidget');
    expect(withUnknown).not.toContain('VISIBLE-TEXT');
    expect(withUnknown).not.toContain('<b>');
    expect(withUnknown.replace(/\s+/g, '')).toBe(without.replace(/\s+/g, ''));

    const answer = answerHtml(renderQuestion(question({ answer: [unknown] }), options()));
    expect(answer.trim()).toBe('');
  });

  it('renders nothing for an unknown inline node inside a paragraph', () => {
    const body = mainHtml(
      renderArticle(
        article({ body: [para(span('Hello'), { _type: 'emojiNode', text: 'SECRET' }, span(' world'))] }),
        options(),
      ),
    );
    expect(body).toContain('<p>Hello world</p>');
    expect(body).not.toContain('SECRET');
    expect(body).not.toContain('emojiNode');
  });

  it('renders a heading at its level', () => {
    const body = mainHtml(
      renderArticle(
        article({
          body: [
            { _type: 'heading', level: 2, text: 'Second' },
            { _type: 'heading', level: 4, text: 'Fourth' },
            { _type: 'heading', level: 6, text: 'Sixth' },
          ],
        }),
        options(),
      ),
    );
    expect(body).toContain('<h2>Second</h2>');
    expect(body).toContain('<h4>Fourth</h4>');
    expect(body).toContain('<h6>Sixth</h6>');
  });

  it('renders paragraphs from text and from children, in block order', () => {
    const body = mainHtml(
      renderArticle(article({ body: [textPara('One'), para(span('Two'), span(' parts'))] }), options()),
    );
    expect(body).toMatch(/<p>One<\/p>[\s\S]*<p>Two parts<\/p>/);
  });

  it('renders a statBar with each value and label', () => {
    const body = mainHtml(
      renderArticle(
        article({
          body: [
            {
              _type: 'statBar',
              stats: [
                { value: '42%', label: 'Runners' },
                { value: '3 km', label: 'Median run' },
              ],
            },
          ],
        }),
        options(),
      ),
    );
    expect(body).toContain('<dt>Runners</dt><dd>42%</dd>');
    expect(body).toContain('<dt>Median run</dt><dd>3 km</dd>');
  });

  it('renders a bullet list as ul and a number list as ol', () => {
    const body = mainHtml(
      renderArticle(article({ body: [list(['a', 'b'], 'bullet'), list(['c', 'd'], 'number')] }), options()),
    );
    expect(body).toContain('<ul><li>a</li><li>b</li></ul>');
    expect(body).toContain('<ol><li>c</li><li>d</li></ol>');
  });

  it('renders a quote with its cite, and without a cite element when there is none', () => {
    const body = mainHtml(
      renderArticle(
        article({
          body: [
            { _type: 'quote', text: 'Run far', cite: 'A coach' },
            { _type: 'quote', text: 'Uncited' },
          ],
        }),
        options(),
      ),
    );
    expect(body).toMatch(/<blockquote><p>Run far<\/p>[^]*<cite>A coach<\/cite>[^]*<\/blockquote>/);
    expect(body).toContain('<blockquote><p>Uncited</p></blockquote>');
    expect(count(body, '<cite>')).toBe(1);
  });

  it('renders an image with alt and caption', () => {
    const body = mainHtml(
      renderArticle(
        article({
          body: [{ _type: 'image', url: 'https://img.example.test/shoe.png', alt: 'A shoe', caption: 'Our pick' }],
        }),
        options(),
      ),
    );
    expect(body).toMatch(/<img src="https:\/\/img\.example\.test\/shoe\.png" alt="A shoe"/);
    expect(body).toContain('<figcaption>Our pick</figcaption>');
  });

  it.each([['info'], ['warning'], ['tip']])('renders a %s callout with its tone class', (tone) => {
    const body = mainHtml(renderArticle(article({ body: [{ _type: 'callout', tone, text: 'Careful' }] }), options()));
    expect(body).toMatch(new RegExp(`<aside class="callout callout-${tone}"><p>Careful</p></aside>`));
  });

  it('renders a table with thead and tbody', () => {
    const body = mainHtml(
      renderArticle(
        article({
          body: [
            {
              _type: 'table',
              header: ['Shoe', 'Price'],
              rows: [
                ['A', '$1'],
                ['B', '$2'],
              ],
            },
          ],
        }),
        options(),
      ),
    );
    expect(body).toContain('<thead><tr><th>Shoe</th><th>Price</th></tr></thead>');
    expect(body).toContain('<tbody><tr><td>A</td><td>$1</td></tr><tr><td>B</td><td>$2</td></tr></tbody>');
  });
});

describe('blocks in another shape than the one that renders', () => {
  const render = (...body: Block[]) => mainHtml(renderArticle(article({ body }), options()));

  it.each([
    [0, 'h1'],
    [-3, 'h1'],
    [7, 'h6'],
    [99, 'h6'],
    [2.4, 'h2'],
    ['3', 'h3'],
    [undefined, 'h2'],
    [null, 'h2'],
    ['high', 'h2'],
    [{ n: 1 }, 'h2'],
  ])('clamps heading level %j to %s', (level, tag) => {
    expect(render({ _type: 'heading', level, text: 'T' })).toContain(`<${tag}>T</${tag}>`);
  });

  it('gives an image without alt an empty one, and renders an image without a url not at all', () => {
    expect(render({ _type: 'image', url: 'https://img.example.test/a.png' })).toContain(
      '<img src="https://img.example.test/a.png" alt=""',
    );
    expect(render({ _type: 'image', url: 'https://img.example.test/b.png', alt: { text: 'x' } })).toContain('alt=""');
    expect(render({ _type: 'image', src: 'https://img.example.test/c.png', alt: 'C' })).not.toContain('<img');
  });

  it('renders style "ordered" as a numbered list, like "number"', () => {
    expect(render({ _type: 'list', style: 'ordered', items: ['First', 'Second'] })).toContain(
      '<ol><li>First</li><li>Second</li></ol>',
    );
  });

  it('renders a list item sent as an object from its text, escaped and with the inline rules of a string item', () => {
    const items = [
      { text: 'Object item' },
      'String item',
      { text: `${XSS} [live](page:${LIVE_ID}) [src-1] [src-9]` },
      { text: 3 },
    ];
    const answer = answerHtml(
      renderQuestion(question({ answer: [{ _type: 'list', items }], sources: [source('src-1')] }), options()),
    );
    const cited = '<sup class="citation"><a href="#source-1">[1]</a></sup>';
    expect(answer).toContain(
      `<ul><li>Object item</li><li>String item</li><li>${ESCAPED_XSS} <a href="${LIVE_URL}">live</a> ${cited}</li><li>3</li></ul>`,
    );
  });

  it('renders nothing for a block without the field it is made of', () => {
    const blocks: Block[] = [
      { _type: 'heading', level: 2 },
      { _type: 'paragraph' },
      { _type: 'paragraph', children: 'text' },
      { _type: 'statBar', stats: 'many' },
      { _type: 'list', items: { a: 1 } },
      { _type: 'quote', cite: 'Someone' },
      { _type: 'callout', tone: 'tip', text: ['x'] },
      { _type: 'table', header: 'H', rows: 'R' },
    ];
    for (const block of blocks)
      expect(render(block).trim()).toMatch(
        /^<article>\n<header><h1>The title<\/h1><p class="meta">.*<\/p><\/header>\n\s*\n?<\/article>$/,
      );
  });

  it('renders the usable parts and never echoes an object or a type name', () => {
    const html = render(
      {
        _type: 'paragraph',
        text: 'Lead',
        children: [
          { text: 'no type' },
          'raw',
          null,
          7,
          { _type: 'span', text: ' tail' },
          { _type: 'span', text: { x: 1 } },
        ],
      },
      { _type: 'list', style: 'square', items: [{ text: { v: 'OBJ' } }, { label: 'OBJ' }, 'One', 2, null] },
      { _type: 'quote', text: 'Q', cite: { name: 'OBJ' } },
      { _type: 'callout', text: 'C', tone: { t: 1 } },
      { _type: 'table', rows: [['a', { v: 'OBJ' }, 3], 'row'] },
      { _type: 'statBar', stats: [{ value: 42, label: 'L' }, 'junk', { value: { v: 1 } }] },
      { _type: 'paragraph', children: [{ _type: 'sourceCitation' }, { _type: 'sourceCitation', id: 1 }] },
    );
    expect(html).toContain('<p>Lead tail</p>');
    expect(html).toContain('<ul><li>One</li><li>2</li></ul>'); // an unknown style is a bullet list
    expect(html).toContain('<blockquote><p>Q</p></blockquote>');
    expect(html).toContain('<aside class="callout"><p>C</p></aside>');
    expect(html).toContain('<table><tbody><tr><td>a</td><td></td><td>3</td></tr></tbody></table>');
    expect(html).toContain(
      '<dl class="stat-bar"><div class="stat"><dt>L</dt><dd>42</dd></div><div class="stat"><dt></dt><dd></dd></div></dl>',
    );
    expect(html).not.toMatch(/object|OBJ|no type|raw|undefined|null|sourceCitation|span/);
  });

  it.each([['constructor'], ['__proto__'], ['toString'], ['hasOwnProperty'], ['valueOf']])(
    'renders a %s block or inline node as an unknown type',
    (name) => {
      const html = render({ _type: name, text: 'HIDDEN' }, para(span('Shown'), { _type: name, text: 'HIDDEN' }));
      expect(html).toContain('<p>Shown</p>');
      expect(html).not.toContain('HIDDEN');
      expect(html).not.toContain(name);
    },
  );
});

describe('head', () => {
  it('takes <title> from meta_title, not from the title', () => {
    const html = renderArticle(article({ title: 'Visible title', meta_title: 'SEO title' }), options());
    expect(headHtml(html)).toContain('<title>SEO title</title>');
    expect(headHtml(html)).not.toContain('Visible title</title>');
    expect(renderQuestion(question({ question: 'Why?', meta_title: 'Q meta' }), options())).toContain(
      '<title>Q meta</title>',
    );
  });

  it("renders meta_description as the meta description, and without one the page's first words", () => {
    const withDesc = headHtml(renderArticle(article({ meta_description: 'About shoes' }), options()));
    expect(withDesc).toContain('<meta name="description" content="About shoes">');
    const fromExcerpt = headHtml(renderArticle(article({ excerpt: 'Short card text' }), options()));
    expect(fromExcerpt).toContain('<meta name="description" content="Short card text">');
    // None sent: the body's first words, as search engines would take them (Lighthouse's SEO audit needs one).
    const fromBody = headHtml(
      renderArticle(
        article({ meta_description: null, body: [{ _type: 'paragraph', text: 'Fit first, then grip.' }] }),
        options(),
      ),
    );
    expect(fromBody).toContain('<meta name="description" content="Fit first, then grip.">');
    const q = question({ answer: [{ _type: 'paragraph', text: 'About 800 km.' }] });
    expect(headHtml(renderQuestion(q, options()))).toContain('<meta name="description" content="About 800 km.">');
  });

  it('uses canonical_url as canonical when set and the page URL otherwise', () => {
    const set = headHtml(
      renderArticle(article({ canonical_url: 'https://canonical.example.test/guides/shoes' }), options()),
    );
    expect(set).toContain('<link rel="canonical" href="https://canonical.example.test/guides/shoes">');
    expect(count(set, 'rel="canonical"')).toBe(1);
    const unset = headHtml(renderArticle(article(), options()));
    expect(unset).toContain(`<link rel="canonical" href="${BASE}/sites/1/articles/the-page">`);
    const qUrl = `${BASE}/sites/1/questions/the-question`;
    expect(headHtml(renderQuestion(question(), options({ pageUrl: qUrl })))).toContain(
      `<link rel="canonical" href="${qUrl}">`,
    );
  });

  it('renders robots noindex only when noindex is true', () => {
    expect(headHtml(renderArticle(article({ noindex: true }), options()))).toContain(
      '<meta name="robots" content="noindex">',
    );
    expect(renderArticle(article({ noindex: false }), options())).not.toContain('name="robots"');
    expect(renderArticle(article(), options())).not.toContain('name="robots"');
    expect(renderQuestion(question(), options())).not.toContain('name="robots"');
  });

  it('emits JSON-LD of the article schema_type', () => {
    const [howTo] = jsonLd(renderArticle(article({ schema_type: 'HowTo', title: 'Lace shoes' }), options()));
    expect(howTo).toMatchObject({ '@context': 'https://schema.org', '@type': 'HowTo', headline: 'Lace shoes' });
    const [plain] = jsonLd(renderArticle(article(), options()));
    expect(given(plain, 'the plain')['@type']).toBe('Article');
  });

  it('emits an FAQPage of the one question and its accepted answer for a question page without community answers', () => {
    const html = renderQuestion(
      question({ question: 'How hot is boiling water?', answer: [textPara('About 100 degrees.')] }),
      options(),
    );
    const all = jsonLd(html);
    expect(all.map((ld) => ld['@type'])).toEqual(['FAQPage', 'BreadcrumbList']);
    const [ld] = all;
    expect(given(ld, 'the ld').publisher).toEqual({
      '@type': 'Organization',
      name: 'Run & Co',
      url: `${BASE}/sites/1/`,
    });
    expect(given(ld, 'the ld').mainEntity).toEqual([
      expect.objectContaining({
        '@type': 'Question',
        name: 'How hot is boiling water?',
        acceptedAnswer: expect.objectContaining({ '@type': 'Answer', text: 'About 100 degrees.' }),
      }),
    ]);
    expect(html).not.toContain('QAPage');
  });

  it('renders the cover image when set and none when not', () => {
    const withCover = renderArticle(article({ cover_image: 'https://img.example.test/cover.jpg' }), options());
    expect(mainHtml(withCover)).toMatch(/<img class="cover" src="https:\/\/img\.example\.test\/cover\.jpg"/);
    expect(given(jsonLd(withCover)[0], 'the JSON-LD').image).toBe('https://img.example.test/cover.jpg');
    expect(mainHtml(renderArticle(article(), options()))).not.toContain('<img');
  });
});

describe('question pages', () => {
  const community: CommunityAnswer[] = [
    { answer_id: 'ca1', author: 'Runner Ann', blocks: [textPara('I run in flats.')], created_at: NOW },
    { answer_id: 'ca2', author: 'Coach Bo', blocks: [list(['Warm up', 'Cool down'])], created_at: NOW },
  ];

  it('renders the site-owned summary and the community answers beside the editor answer', () => {
    const html = renderQuestion(
      question(
        { answer: [textPara('Editor answer.')] },
        { summary: 'Site summary text', community_answers: community },
      ),
      options(),
    );
    const body = mainHtml(html);
    expect(body).toContain('Site summary text');
    expect(answerHtml(html)).toContain('<p>Editor answer.</p>');
    expect(body).toContain('Runner Ann');
    expect(body).toContain('<p>I run in flats.</p>');
    expect(body).toContain('Coach Bo');
    expect(body).toContain('<ul><li>Warm up</li><li>Cool down</li></ul>');
    // community answers are not part of the editor's answer
    expect(answerHtml(html)).not.toContain('I run in flats.');
    // Answers its readers gave: a QAPage, the editor's answer the accepted one, theirs suggested.
    const [ld] = jsonLd(html);
    expect(given(ld, 'the ld')['@type']).toBe('QAPage');
    expect(given(ld, 'the ld').mainEntity).toMatchObject({
      '@type': 'Question',
      answerCount: 3,
      acceptedAnswer: { '@type': 'Answer', text: 'Editor answer.', upvoteCount: 0 },
      suggestedAnswer: [
        {
          '@type': 'Answer',
          text: 'I run in flats.',
          upvoteCount: 0,
          author: { '@type': 'Person', name: 'Runner Ann' },
        },
        {
          '@type': 'Answer',
          text: 'Warm up Cool down',
          upvoteCount: 0,
          url: `${BASE}/sites/1/articles/the-page#answer-ca2`,
        },
      ],
    });
    expect(body).toContain('<section class="community-answer" id="answer-ca2">');
  });

  it('renders no summary when it is null', () => {
    const body = mainHtml(renderQuestion(question({ answer: [textPara('A')] }), options()));
    expect(body).not.toContain('summary');
  });
});

describe('renderUnavailable', () => {
  it("gives a site's 404 and 410 pages its header, a link home and its footer, never indexed", () => {
    const home = `${BASE}/sites/${SITE}/`;
    for (const status of [404, 410] as const) {
      const html = renderUnavailable(status, options().site);
      expect(html).toContain('<meta name="robots" content="noindex">');
      expect(html).toContain(`<title>${status === 404 ? 'Not found' : 'Gone'} · Run &amp; Co</title>`);
      expect(html).toContain(`<a class="site-name" href="${home}">Run &amp; Co</a>`);
      expect(mainHtml(html)).toContain(`<a href="${home}">Go to the home page of Run &amp; Co</a>`);
      expect(html).toContain(`<footer class="site"><div class="wrap"><a href="${home}">Run &amp; Co</a>`);
    }
  });

  it("is in the site's language and links its icon, as the site's other pages", () => {
    const html = renderUnavailable(404, { ...options().site, locale: 'GB/en' });
    expect(html).toContain('<html lang="en-GB">');
    expect(html).toContain(`<link rel="icon" href="${BASE}/favicon.ico" type="image/svg+xml">`);
  });

  it('is the bare message where no site is', () => {
    const html = renderUnavailable(404, null);
    expect(html).toContain('<h1>Not found</h1>');
    expect(html).toContain('<meta name="robots" content="noindex">');
    expect(html).not.toMatch(/<header|<footer|<a /);
  });
});

describe('renderPage', () => {
  it('renders an article record as an article and a question record as a question', () => {
    const a = article({ title: 'Art', body: [textPara('x')] });
    const q = question({ question: 'Qst?', answer: [textPara('y')], sources: [source('src-1')] });
    expect(renderPage(a, options())).toBe(renderArticle(a, options()));
    expect(renderPage(q, options())).toBe(renderQuestion(q, options()));
    expect(renderPage(q, options())).toContain('class="part sources"');
  });
});

describe('markup edge cases', () => {
  it('reads [src-1](url) after a space as a link, not as a citation marker', () => {
    const html = renderArticle(article({ body: [textPara('a [src-1](https://x.test/) b')] }), options());
    expect(mainHtml(html)).toContain('<p>a <a href="https://x.test/">src-1</a> b</p>');
    const q = renderQuestion(
      question({ answer: [list(['a [src-1](https://x.test/)'])], sources: [source('src-1')] }),
      options(),
    );
    expect(answerHtml(q)).toContain('<li>a <a href="https://x.test/">src-1</a></li>');
  });

  it('renders no citation marker in an article in stat values, quote citations or image captions', () => {
    const html = mainHtml(
      renderArticle(
        article({
          body: [
            { _type: 'statBar', stats: [{ value: '42% [src-1]', label: 'Share [src-2]' }] },
            { _type: 'quote', text: 'Q', cite: 'Someone [src-2]' },
            { _type: 'image', url: 'https://img.example.test/a.png', alt: 'a', caption: 'Caption [src-3]' },
          ],
        }),
        options(),
      ),
    );
    expect(html).toContain('<dd>42%</dd>');
    expect(html).toContain('<dt>Share</dt>');
    expect(html).toContain('<cite>Someone</cite>');
    expect(html).toContain('<figcaption>Caption</figcaption>');
    expect(html).not.toContain('src-');
  });

  it('drops the space before an unknown citation that follows paragraph text', () => {
    const q = renderQuestion(
      question({ answer: [{ _type: 'paragraph', text: 'Water boils ', children: [cite('src-9'), span('.')] }] }),
      options(),
    );
    expect(answerHtml(q)).toContain('<p>Water boils.</p>');
  });

  it('never uses a mailto URL as an image source', () => {
    const html = renderArticle(
      article({ cover_image: 'mailto:a@b.test', body: [{ _type: 'image', url: 'mailto:a@b.test', alt: 'x' }] }),
      options(),
    );
    expect(html).not.toContain('<img');
  });
});

describe('Portable Text blocks (audit: editors that write Portable Text)', () => {
  const pt = (children: unknown[], extra: Record<string, unknown> = {}): Block => ({
    _type: 'block',
    style: 'normal',
    children,
    markDefs: [],
    ...extra,
  });
  const s = (text: string, marks: string[] = []) => ({ _type: 'span', _key: text.slice(0, 4), text, marks });

  it('renders styles, decorators and hard breaks, escaped', () => {
    const body = [
      pt([s('Title')], { style: 'h1' }),
      pt([s('Sub')], { style: 'h6' }),
      pt([s('Quoted')], { style: 'blockquote' }),
      pt([s('bold', ['strong']), s(' '), s('it', ['em']), s(' '), s('x<y', ['code']), s('\nnext')]),
    ];
    expect(mainHtml(renderArticle(article({ body }), options()))).toContain(
      '<h1>Title</h1><h6>Sub</h6><blockquote>Quoted</blockquote><p><strong>bold</strong> <em>it</em> <code>x&lt;y</code><br>next</p>',
    );
  });

  it('groups list items into lists by listItem and level', () => {
    const item = (text: string, listItem: string, level: number) => pt([s(text)], { listItem, level });
    const body = [
      item('a', 'bullet', 1),
      item('b', 'bullet', 2),
      item('c', 'bullet', 1),
      item('one', 'number', 1),
      item('two', 'number', 1),
    ];
    expect(mainHtml(renderArticle(article({ body }), options()))).toContain(
      '<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul><ol><li>one</li><li>two</li></ol>',
    );
  });

  it('renders link annotations through the URL allow-list, and page: links only while the page is live', () => {
    const markDefs = [
      { _key: 'ok', _type: 'link', href: 'https://example.test/a' },
      { _key: 'js', _type: 'link', href: 'javascript:alert(1)' },
      { _key: 'live', _type: 'link', href: `page:${LIVE_ID}` },
      { _key: 'dead', _type: 'link', href: `page:${DEAD_ID}` },
    ];
    const body = [pt([s('ok', ['ok']), s(' js', ['js']), s(' live', ['live']), s(' dead', ['dead'])], { markDefs })];
    const html = mainHtml(renderArticle(article({ body }), options()));
    expect(html).toContain(`<p><a href="https://example.test/a">ok</a> js<a href="${LIVE_URL}"> live</a> dead</p>`);
    expectOnlySafeUrls(html);
  });

  it('applies the citation rules to sourceCitation nodes in children and to literal markers in list items', () => {
    const answer = [
      pt([s('Known'), cite('src-1'), s(' unknown'), cite('src-9'), s('.')]),
      pt([s('item [src-1]')], { listItem: 'bullet', level: 1 }),
      pt([s('item [src-2]')], { listItem: 'bullet', level: 1 }),
    ];
    const html = answerHtml(renderQuestion(question({ answer, sources: [source('src-1')] }), options()));
    expect(html).toContain('<p>Known<sup class="citation"><a href="#source-1">[1]</a></sup> unknown.</p>');
    expect(html).toContain(
      '<ul><li>item <sup class="citation"><a href="#source-1">[1]</a></sup></li><li>item</li></ul>',
    );
    // No citation renders in an article.
    expect(mainHtml(renderArticle(article({ body: answer }), options()))).not.toContain('citation');
  });

  it('never echoes a type, a style, a mark name or markup, whatever the shape sent', () => {
    const body = [
      pt(
        [
          null,
          7,
          { _type: '@span', children: 'x' },
          { _type: XSS, text: XSS },
          { _type: 'span', text: XSS, marks: [XSS, null] },
        ],
        {
          style: XSS,
          markDefs: [null, 3, { _key: XSS, _type: XSS, href: 'javascript:x' }],
          listItem: XSS,
          level: 'deep',
        },
      ),
      { _type: 'block', children: 'not a list' },
      { _type: 'block' },
    ];
    const html = mainHtml(renderArticle(article({ body }), options()));
    // An unknown style renders as a paragraph, an unknown list type as a bullet list.
    expect(html).toContain(`<ul><li><p>${ESCAPED_XSS}</p></li></ul>`);
    expect(count(html, '<script')).toBe(0);
    expect(html).not.toContain('unknown');
    expectOnlySafeUrls(html);
  });
});

describe('links whose URL holds parentheses', () => {
  it('renders a Markdown link to a URL with balanced parentheses as a link (audit: Mercury_(planet))', () => {
    const html = mainHtml(
      renderArticle(
        article({ body: [textPara('See [Mercury](https://en.wikipedia.org/wiki/Mercury_(planet)) now.')] }),
        options(),
      ),
    );
    expect(html).toContain('<p>See <a href="https://en.wikipedia.org/wiki/Mercury_(planet)">Mercury</a> now.</p>');
  });
});

describe('the table of block types (issue 38)', () => {
  /** One block of each type in the table and what it renders; a type added to the table without a case does not compile. */
  const CASES: { [T in KnownBlockType]: [Block, string] } = {
    heading: [{ _type: 'heading', level: 3, text: 'A <h>' }, '<h3>A &lt;h&gt;</h3>'],
    paragraph: [textPara('A & B'), '<p>A &amp; B</p>'],
    statBar: [
      { _type: 'statBar', stats: [{ value: '42%', label: 'faster <x>' }] },
      '<dl class="stat-bar"><div class="stat"><dt>faster &lt;x&gt;</dt><dd>42%</dd></div></dl>',
    ],
    list: [list(['<one>']), '<ul><li>&lt;one&gt;</li></ul>'],
    quote: [
      { _type: 'quote', text: 'Run "far"', cite: 'Ann' },
      '<blockquote><p>Run &quot;far&quot;</p><footer><cite>Ann</cite></footer></blockquote>',
    ],
    image: [
      { _type: 'image', url: 'https://img.example.test/a.jpg', alt: 'A "shoe"', width: 800, height: 600 },
      '<figure><img src="https://img.example.test/a.jpg" alt="A &quot;shoe&quot;" width="800" height="600" loading="lazy" decoding="async"></figure>',
    ],
    callout: [
      { _type: 'callout', tone: 'tip', text: 'Hint' },
      '<aside class="callout callout-tip"><p>Hint</p></aside>',
    ],
    table: [
      { _type: 'table', header: ['H'], rows: [['<c>']] },
      '<div class="table" role="region" aria-label="Table: H" tabindex="0"><table><thead><tr><th>H</th></tr></thead><tbody><tr><td>&lt;c&gt;</td></tr></tbody></table></div>',
    ],
    code: [
      { _type: 'code', language: 'TypeScript', filename: 'a<b>.ts', code: 'if (a < b) x = "[y](https://z.test)";' },
      '<figure class="code"><figcaption>a&lt;b&gt;.ts</figcaption><pre><code class="language-typescript">if (a &lt; b) x = &quot;[y](https://z.test)&quot;;</code></pre></figure>',
    ],
    block: [
      { _type: 'block', style: 'h2', children: [{ _type: 'span', text: 'PT <h2>', marks: [] }], markDefs: [] },
      '<h2>PT &lt;h2&gt;</h2>',
    ],
  };

  it.each(Object.keys(BLOCK_TYPES) as KnownBlockType[])('renders a %s block as its entry says, escaped', (type) => {
    const [block, html] = CASES[type];
    // Not the first block: an image there would load at once.
    expect(mainHtml(renderArticle(article({ body: [textPara('Lead'), block] }), options()))).toContain(html);
  });

  it('lets a keyboard reach a scrolling table, named by its columns in words', () => {
    const table = (header: unknown) =>
      mainHtml(renderArticle(article({ body: [{ _type: 'table', header, rows: [['1', '2']] }] }), options()));
    expect(table(['Shoe <b>', 'See [price](https://x.test) [src-1]', ' ', { x: 1 }])).toContain(
      '<div class="table" role="region" aria-label="Table: Shoe &lt;b&gt;, See price" tabindex="0"><table>',
    );
    expect(table(undefined)).toContain('<div class="table" role="region" aria-label="Table" tabindex="0"><table>');
  });

  it('renders a code block verbatim: no links or citations read in it, a language only as a plain token', () => {
    const code = (language: unknown) =>
      answerHtml(
        renderQuestion(
          question({
            answer: [{ _type: 'code', language, code: 'see [src-1] and [x](page:' + LIVE_ID + ')' }],
            sources: [source('src-1')],
          }),
          options(),
        ),
      );
    expect(code('js')).toContain(`<pre><code class="language-js">see [src-1] and [x](page:${LIVE_ID})</code></pre>`);
    expect(code('x" onclick="y')).toContain('<pre><code>see');
    expect(code(['js'])).toContain('<pre><code>see');
    expect(mainHtml(renderArticle(article({ body: [{ _type: 'code', language: 'js' }] }), options()))).not.toContain(
      '<pre',
    );
  });

  it('publishes a code block without a warning, and warns of one in another shape at its field', () => {
    const publish = (block: Block) =>
      preparePublish(SITE, { type: 'article', value: { slug: 's', title: 'T', body: [block] } }, NOW).warnings;
    expect(publish({ _type: 'code', code: 'x', language: 'ts', filename: 'x.ts' })).toEqual([]);
    expect(publish({ _type: 'code', code: 3 })).toEqual([expect.objectContaining({ path: 'body[0].code' })]);
    expect(publish({ _type: 'codeBlock', code: 'x' })).toEqual([
      { path: 'body[0]', message: 'unknown block type; stored, not rendered' },
    ]);
  });

  it('loads an image at once when it is the first thing under the title, else lazily, and the cover first', () => {
    const image: Block = { _type: 'image', url: 'https://img.example.test/a.jpg', alt: '' };
    expect(mainHtml(renderArticle(article({ body: [image] }), options()))).not.toContain('loading="lazy"');
    const withCover = mainHtml(
      renderArticle(article({ cover_image: 'https://img.example.test/c.jpg', body: [image] }), options()),
    );
    expect(withCover).toMatch(
      /<img class="cover" src="https:\/\/img\.example\.test\/c\.jpg" alt=""[^>]* fetchpriority="high">/,
    );
    expect(withCover).toContain('loading="lazy"');
  });
});

describe('the theme (issue 38)', () => {
  it('puts the one stylesheet inline, and the CSP source is the hash of exactly it', () => {
    for (const html of [renderArticle(article(), options()), renderQuestion(question(), options())]) {
      const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => given(m[1], 'the m[1]'));
      expect(styles).toHaveLength(1);
      expect(THEME_STYLE_SOURCE).toBe(
        `'sha256-${createHash('sha256').update(given(styles[0], 'the styles[0]')).digest('base64')}'`,
      );
      // Nothing is loaded for it: no stylesheet link, no font, no import.
      expect(html).not.toMatch(/<link rel="stylesheet"|@import|@font-face|url\(/);
    }
  });

  const luminance = (hex: string): number => {
    const [r, g, b] = [1, 3, 5].map((i) => {
      const c = parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * given(r, 'the r') + 0.7152 * given(g, 'the g') + 0.0722 * given(b, 'the b');
  };
  const contrast = (a: string, b: string): number => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (given(hi, 'the hi') + 0.05) / (given(lo, 'the lo') + 0.05);
  };

  it.each(Object.entries(PALETTES))('meets WCAG AA contrast in the %s palette', (_name, palette) => {
    for (const fg of [palette.fg, palette.muted, palette.link])
      for (const bg of [palette.bg, palette.card, palette.info, palette.warning, palette.tip])
        expect(contrast(fg, bg)).toBeGreaterThanOrEqual(4.5);
    for (const bg of [palette.bg, palette.card]) expect(contrast(palette.focus, bg)).toBeGreaterThanOrEqual(3);
  });
});

describe('page furniture and head tags (issue 38)', () => {
  it('heads every page with the site name linking home, breadcrumbs and a footer, as landmarks', () => {
    const html = renderArticle(article({ title: 'Laces', category: 'Shoe Care & Fit' }), options());
    const home = `${BASE}/sites/1/`;
    expect(html).toContain(
      `<header class="site"><div class="wrap"><a class="site-name" href="${home}">Run &amp; Co</a>`,
    );
    expect(html).toContain(
      `<li><a href="${home}categories/shoe-care-fit">Shoe Care &amp; Fit</a></li><li aria-current="page">Laces</li>`,
    );
    expect(html).toMatch(/<main id="content">[\s\S]*<\/main>\n<\/div>\n<footer class="site">/);
    // A category with no letter or digit names no page: home › page.
    expect(renderArticle(article({ category: '&&' }), options())).toContain(
      `<li><a href="${home}">Home</a></li><li aria-current="page">`,
    );
  });

  it("links a question to each of its topics' pages, as an article's category is a crumb", () => {
    const topics = (names: string[]) => mainHtml(renderQuestion(question({ topics: names }), options()));
    const html = topics(['Running Shoes', 'running shoes', '&&', 'Fit <b>"x"</b>']);
    const root = `${BASE}/sites/1`;
    // One link per topic page (a name with no letter or digit names none), in the header, escaped.
    expect(html).toContain(
      `</p><p class="meta topics">Topics: <a href="${root}/topics/running-shoes" rel="tag">Running Shoes</a>, ` +
        `<a href="${root}/topics/fit-b-x-b" rel="tag">Fit &lt;b&gt;&quot;x&quot;&lt;/b&gt;</a></p></header>`,
    );
    expect(topics(['Fit'])).toContain(
      `<p class="meta topics">Topic: <a href="${root}/topics/fit" rel="tag">Fit</a></p>`,
    );
    expect(topics([])).not.toContain('class="meta topics"');
    expect(topics(['&&'])).not.toContain('class="meta topics"');
    // Only the topics whose pages list the question: the first 20.
    const many = topics(Array.from({ length: 25 }, (_v, i) => `topic ${i}`));
    expect(count(many, 'rel="tag"')).toBe(20);
    expect(many).toContain('/topics/topic-19"');
    expect(many).not.toContain('/topics/topic-20"');
  });

  it('has Open Graph and Twitter card tags, escaped, with the page text when there is no description', () => {
    const hostile = `"><script>x</script>`;
    const html = headHtml(
      renderArticle(
        article({
          meta_title: `T ${hostile}`,
          body: [
            { _type: 'image', url: 'https://img.example.test/a.jpg?x=1&y="2"', alt: '' },
            textPara(`Words ${hostile}`),
          ],
        }),
        options({ site: { ...options().site, name: `Site ${hostile}` } }),
      ),
    );
    const tags = new Map(
      [...html.matchAll(/<meta (?:property|name)="([^"]+)" content="([^"]*)">/g)].map((m) => [m[1], m[2]]),
    );
    const escaped = '&quot;&gt;&lt;script&gt;x&lt;/script&gt;';
    expect(Object.fromEntries(tags)).toMatchObject({
      'og:type': 'article',
      'og:title': `T ${escaped}`,
      'og:description': `Words ${escaped}`,
      'og:url': `${BASE}/sites/1/articles/the-page`,
      'og:site_name': `Site ${escaped}`,
      'og:image': 'https://img.example.test/a.jpg?x=1&amp;y=%222%22',
      'twitter:card': 'summary_large_image',
      'twitter:title': `T ${escaped}`,
      'twitter:description': `Words ${escaped}`,
      'twitter:image': 'https://img.example.test/a.jpg?x=1&amp;y=%222%22',
    });
    expect(html).not.toContain('<script>x');
    // No image at all: a summary card, no og:image.
    const plain = headHtml(renderQuestion(question({ meta_description: 'Short' }), options()));
    expect(plain).toContain('<meta name="twitter:card" content="summary">');
    expect(plain).toContain('<meta property="og:description" content="Short">');
    expect(plain).not.toContain('og:image');
  });

  it('gives an article JSON-LD its publisher, image, dates in order and a BreadcrumbList', () => {
    // An editor's updated_at before the first publish: dateModified is the first publish, never earlier.
    const page = article({
      updated_at: '2020-01-01T00:00:00.000Z',
      cover_image: 'https://img.example.test/c.jpg',
      category: 'Gear',
    });
    const [ld, crumbs] = jsonLd(renderArticle(page, options()));
    const publisher = { '@type': 'Organization', name: 'Run & Co', url: `${BASE}/sites/1/` };
    expect(ld).toMatchObject({
      publisher,
      image: 'https://img.example.test/c.jpg',
      datePublished: CREATED,
      dateModified: CREATED,
    });
    expect(Date.parse(String(given(ld, 'the ld').datePublished))).toBeLessThanOrEqual(
      Date.parse(String(given(ld, 'the ld').dateModified)),
    );
    expect(crumbs).toEqual({
      '@context': 'https://schema.org',
      '@type': 'BreadcrumbList',
      itemListElement: [
        { '@type': 'ListItem', position: 1, name: 'Home', item: `${BASE}/sites/1/` },
        { '@type': 'ListItem', position: 2, name: 'Gear', item: `${BASE}/sites/1/categories/gear` },
        { '@type': 'ListItem', position: 3, name: 'The title', item: `${BASE}/sites/1/articles/the-page` },
      ],
    });
  });

  it('shows related articles and questions as cards with their titles, only those readers can reach', () => {
    const LIVE_QUESTION = pageId(SITE, 'question', 'live-q');
    const linkTarget = (id: string) =>
      id === LIVE_ID ? LIVE_PAGE : id === LIVE_QUESTION ? { url: `${BASE}/q`, title: 'Why <run>?' } : null;
    const html = mainHtml(
      renderArticle(
        article({ related_article_ids: [DEAD_ID, LIVE_ID], related_question_ids: [LIVE_QUESTION] }),
        options({ linkTarget }),
      ),
    );
    expect(html).toContain(
      `<ul class="cards"><li><a class="card" href="${LIVE_URL}"><span class="card-kind">Article</span><span class="card-title">The live page</span></a></li>` +
        `<li><a class="card" href="${BASE}/q"><span class="card-kind">Question</span><span class="card-title">Why &lt;run&gt;?</span></a></li></ul>`,
    );
    expect(mainHtml(renderArticle(article({ related_article_ids: [DEAD_ID] }), options()))).not.toContain('related');
  });

  it('sets each part of a question page apart under its own heading', () => {
    const html = mainHtml(
      renderQuestion(
        question(
          { answer: [textPara('A')], sources: [source('src-1')] },
          {
            summary: 'S',
            community_answers: [{ answer_id: 'c1', author: 'Bo', blocks: [textPara('B')], created_at: NOW }],
          },
        ),
        options(),
      ),
    );
    const headings = [...html.matchAll(/<section class="part [^"]+"[^>]*>\n<h2[^>]*>([^<]*)<\/h2>/g)].map((m) => m[1]);
    expect(headings).toEqual(['In short', 'Answer', 'Sources', 'Answers from readers']);
  });
});
