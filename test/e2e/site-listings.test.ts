import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SERVICE_LIMITS } from '@cm/contract';
import { isPageBreak, pageId } from '@cm/core';
import { runSites } from '@cm/local';
import { article, question, requestPathCount, siteClient, useTestStack } from '../helpers/local';
import { given } from '../helpers/client';

/* The site's listing pages (docs/api.md#listing-pages): its home, categories, topics and index of questions. */

const t = useTestStack();

const get = (path: string) => t.call('GET', path, undefined, { key: null });
/** The titles a listing page shows, in order. */
const titlesOf = (html: string): string[] =>
  [...html.matchAll(/<li class="entry">[\s\S]*?<h2><a href="[^"]*">([^<]*)<\/a><\/h2>/g)].map((m) =>
    given(m[1], 'a title'),
  );
const nextOf = (html: string): string | null =>
  /<a rel="next" href="([^"]*)">/.exec(html)?.[1]?.replace(/&amp;/g, '&') ?? null;

describe('the home page', () => {
  it('lists the live articles and questions, newest first, on pages that keep their URLs while newer ones are published', async () => {
    const site = await siteClient(t, 'Paged site');
    const home = `${t.url}/sites/${site.siteId}/`;
    const publish = async (from: number, count: number) => {
      for (let i = from; i < from + count; i++) {
        const body = i % 3 === 0 ? question(`q-${i}`) : article(`a-${i}`);
        expect((await site.call('POST', i % 3 === 0 ? '/questions' : '/articles', body)).status).toBe(201);
      }
    };
    /** The listing from its first page on, by its Older links: each page's URL, title and cards. */
    const walk = async () => {
      const pages: { url: string; title: string; cards: string[] }[] = [];
      for (let url: string | null = home; url !== null;) {
        const page = await get(url.slice(t.url.length));
        expect(page.status).toBe(200);
        const attr = (value: string) => value.replace(/&/g, '&amp;');
        expect(page.text).toContain(`<link rel="canonical" href="${attr(url)}">`);
        const newer = pages.at(-1)?.url;
        if (newer) {
          // A later page links to the one before it (rel=prev, "Newer"), and the first is one link away.
          expect(page.text).toContain(`<link rel="prev" href="${attr(newer)}">`);
          expect(page.text).toContain(`<a rel="prev" href="${attr(newer)}">Newer</a>`);
          if (newer !== home) expect(page.text).toContain(`<a href="${home}">Latest</a>`);
        } else expect(page.text).not.toContain('rel="prev"');
        const next = nextOf(page.text);
        if (next) expect(page.text).toContain(`<link rel="next" href="${attr(next)}">`);
        pages.push({
          url,
          title: given(/<title>([^<]*)<\/title>/.exec(page.text)?.[1], 'a title'),
          cards: titlesOf(page.text),
        });
        url = next;
      }
      return pages;
    };
    await publish(0, 100);
    const before = await walk();
    const titleOf = (i: number) => (i % 3 === 0 ? `What is q-${i}?` : `Title of a-${i}`);
    expect(before.flatMap((page) => page.cards)).toEqual(Array.from({ length: 100 }, (_v, i) => titleOf(99 - i)));
    expect(before[0]?.cards.length).toBeGreaterThanOrEqual(SERVICE_LIMITS.listingPageSize);
    for (const page of before) expect(page.cards.length).toBeLessThanOrEqual(SERVICE_LIMITS.listingPageMax);
    // Each page has a title of its own (a later page's names the first publishes it shows).
    expect(new Set(before.map((page) => page.title)).size).toBe(before.length);
    expect(before.length).toBeGreaterThan(1);

    // Newer pages published: a later page that starts at a card marked to end a page keeps its URL and cards,
    // and the first page still leads to it.
    await publish(100, 4);
    const after = new Map((await walk()).map((page) => [page.url, page.cards]));
    const marked = before
      .slice(1)
      .filter((page) => isPageBreak(decodeURIComponent(page.url.split('?before=')[1] ?? '')));
    expect(marked.length).toBeGreaterThan(0);
    for (const page of marked) expect([page.url, after.get(page.url)]).toEqual([page.url, page.cards]);
  });

  it('lists only pages readers can reach: not drafts, not what the site took down, again once it is back', async () => {
    const site = await siteClient(t, 'Live only');
    await site.client.route('POST /articles', { body: article('shown') });
    await site.client.route('POST /articles', { body: article('draft', { status: 'draft' }) });
    const down = (await site.client.route('POST /articles', { body: article('taken-down') })).body.id;
    const deleted = (await site.client.route('POST /questions', { body: question('deleted') })).body.id;
    await site.client.route('POST /api/content/notify', { body: { id: down, type: 'article', action: 'unpublished' } });
    await site.client.route('POST /api/content/notify', { body: { id: deleted, type: 'question', action: 'deleted' } });
    expect(titlesOf((await get(`/sites/${site.siteId}/`)).text)).toEqual(['Title of shown']);

    await site.client.route('POST /api/content/notify', { body: { id: down, type: 'article', status: 'published' } });
    // A republish brings a deleted page back too.
    await site.client.route('POST /questions', { body: question('deleted') });
    expect(titlesOf((await get(`/sites/${site.siteId}/`)).text)).toEqual([
      'What is deleted?',
      'Title of taken-down',
      'Title of shown',
    ]);
    await site.client.route('POST /articles', { body: article('shown', { status: 'draft' }) });
    expect(titlesOf((await get(`/sites/${site.siteId}/`)).text)).toEqual(['What is deleted?', 'Title of taken-down']);
  });

  it('keeps a page where its first publish put it, whatever later publishes change', async () => {
    const site = await siteClient(t, 'Order site');
    await site.client.route('POST /articles', { body: article('older') });
    await site.client.route('POST /articles', { body: article('newer') });
    await site.client.route('POST /articles', { body: article('older', { title: 'Older, edited' }) });
    expect(titlesOf((await get(`/sites/${site.siteId}/`)).text)).toEqual(['Title of newer', 'Older, edited']);
  });

  it('says so when nothing is published, and answers 404 to a cursor it did not make or a site that is not there', async () => {
    const site = await siteClient(t, 'Empty site');
    const home = await get(`/sites/${site.siteId}/`);
    expect(home.status).toBe(200);
    expect(home.text).toContain('Nothing is published here yet.');
    expect((await get(`/sites/${site.siteId}/?before=not-a-cursor`)).status).toBe(404);
    expect((await get('/sites/999999/')).status).toBe(404);
  });

  it('escapes what the pages say, and reads one Query per type', async () => {
    const site = await siteClient(t, 'Site <b>&</b>');
    await site.client.route('POST /articles', {
      body: article('hostile', {
        title: '<script>alert(1)</script>',
        meta_description: '"><img src=x onerror=alert(1)>',
      }),
    });
    await get(`/sites/${site.siteId}/`);
    const { requests, result } = await requestPathCount(t, () => get(`/sites/${site.siteId}/`));
    expect(result.text).not.toContain('<script>alert');
    expect(result.text).not.toContain('<img src=x');
    expect(result.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(result.text).toContain('Site &lt;b&gt;&amp;&lt;/b&gt;');
    // The site is kept by the container since the first visit; one Query per page type.
    expect(requests).toBe(2);
  });
});

describe('category and topic pages, and the index of questions', () => {
  it("lists a category's live articles, and follows a page to its new category", async () => {
    const site = await siteClient(t, 'Category site');
    await site.client.route('POST /articles', { body: article('boots', { category: 'Trail Gear' }) });
    await site.client.route('POST /articles', { body: article('vests', { category: 'trail gear' }) });
    const other = (await site.client.route('POST /articles', { body: article('tents', { category: 'Camping' }) })).body
      .id;
    const gear = await get(`/sites/${site.siteId}/categories/trail-gear`);
    expect(gear.status).toBe(200);
    expect(gear.text).toContain('<h1>trail gear</h1>');
    expect(titlesOf(gear.text)).toEqual(['Title of vests', 'Title of boots']);
    // The article's breadcrumb leads to it.
    expect((await get(`/sites/${site.siteId}/articles/boots`)).text).toContain(
      `<a href="${t.url}/sites/${site.siteId}/categories/trail-gear">Trail Gear</a>`,
    );

    await site.client.route('POST /articles', { body: article('boots', { category: 'Camping' }) });
    expect(titlesOf((await get(`/sites/${site.siteId}/categories/trail-gear`)).text)).toEqual(['Title of vests']);
    expect(titlesOf((await get(`/sites/${site.siteId}/categories/camping`)).text)).toEqual([
      'Title of tents',
      'Title of boots',
    ]);
    await site.client.route('POST /api/content/notify', {
      body: { id: other, type: 'article', action: 'unpublished' },
    });
    expect(titlesOf((await get(`/sites/${site.siteId}/categories/camping`)).text)).toEqual(['Title of boots']);
    expect((await get(`/sites/${site.siteId}/categories/no-such-category`)).status).toBe(404);
  });

  it("lists a topic's live questions, the index of questions, and no more topics than the limit", async () => {
    const site = await siteClient(t, 'Topic site');
    await site.client.route('POST /questions', { body: question('fit', { topics: ['Running Shoes', 'Fit'] }) });
    await site.client.route('POST /questions', { body: question('grip', { topics: ['running shoes'] }) });
    await site.client.route('POST /articles', { body: article('not-a-question') });
    const many = Array.from({ length: 25 }, (_v, i) => `topic ${i}`);
    const published = await site.client.route('POST /questions', { body: question('many', { topics: many }) });
    expect(published.body.warnings).toContainEqual({
      path: 'topics',
      message: 'only the first 20 topics list the question on their topic pages',
    });
    expect(titlesOf((await get(`/sites/${site.siteId}/topics/running-shoes`)).text)).toEqual([
      'What is grip?',
      'What is fit?',
    ]);
    const topic19 = await get(`/sites/${site.siteId}/topics/topic-19`);
    expect(titlesOf(topic19.text)).toEqual(['What is many?']);
    expect(topic19.text).toContain(`<a href="${t.url}/sites/${site.siteId}/questions">Questions</a>`);
    expect((await get(`/sites/${site.siteId}/topics/topic-20`)).status).toBe(404);
    expect(titlesOf((await get(`/sites/${site.siteId}/questions`)).text)).toEqual([
      'What is many?',
      'What is grip?',
      'What is fit?',
    ]);
  });

  it('is reached from each question that has it: the question page links to every topic page that lists it', async () => {
    const site = await siteClient(t, 'Linked topics');
    await site.client.route('POST /questions', { body: question('laced', { topics: ['Running Shoes', 'Fit', '&&'] }) });
    const page = await get(`/sites/${site.siteId}/questions/laced`);
    const linked = [...page.text.matchAll(/<a href="([^"]*)" rel="tag">([^<]*)<\/a>/g)].map((m): [string, string] => [
      given(m[1], 'a topic link'),
      given(m[2], 'a topic name'),
    ]);
    expect(linked).toEqual([
      [`${t.url}/sites/${site.siteId}/topics/running-shoes`, 'Running Shoes'],
      [`${t.url}/sites/${site.siteId}/topics/fit`, 'Fit'],
    ]);
    for (const [url, name] of linked) {
      const topic = await t.call('GET', url.slice(t.url.length), undefined, { key: null });
      expect(topic.status).toBe(200);
      expect(topic.text).toContain(`<h1>${name}</h1>`);
      expect(titlesOf(topic.text)).toEqual(['What is laced?']);
    }
  });

  it('reads a section with one Query and one batch read', async () => {
    const site = await siteClient(t, 'Counted section');
    for (const slug of ['one', 'two', 'three'])
      await site.client.route('POST /articles', { body: article(slug, { category: 'Counted' }) });
    await get(`/sites/${site.siteId}/`);
    const { requests, result } = await requestPathCount(t, () => get(`/sites/${site.siteId}/categories/counted`));
    expect(titlesOf(result.text)).toHaveLength(3);
    expect(requests).toBe(2);
  });
});

describe('pages published before the listings were kept', () => {
  it('are put into them by npm run sites -- relist, placed by their first publish, once', async () => {
    const site = await siteClient(t, 'Upgraded site');
    await site.client.route('POST /articles', { body: article('old-one', { category: 'Gear' }) });
    await site.client.route('POST /questions', { body: question('old-two', { topics: ['Fit'] }) });
    await site.client.route('POST /articles', { body: article('old-draft', { status: 'draft' }) });
    // What a page item from before the listings held: none of their attributes.
    const listed = [
      'listing_sk',
      'gsi5pk',
      'gsi5sk',
      'card_text',
      'category',
      'noindex',
      'canonical_url',
      'visible_at',
      'sections',
      'sections_hash',
      'sections_indexed',
      'month_pk',
      'gsi6pk',
    ];
    for (const [type, slug] of [
      ['article', 'old-one'],
      ['question', 'old-two'],
      ['article', 'old-draft'],
    ] as const)
      await t.db.send(
        new UpdateCommand({
          TableName: t.stack.tableName,
          Key: { pk: `SITE#${site.siteId}`, sk: `PAGE#${type}#${pageId(site.siteId, type, slug)}` },
          UpdateExpression: `REMOVE ${listed.join(', ')}`,
        }),
      );
    const before = await t.db.send(
      new QueryCommand({
        TableName: t.stack.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `SITE#${site.siteId}#SECTION#category#gear` },
      }),
    );
    for (const item of before.Items ?? [])
      await t.db.send(new DeleteCommand({ TableName: t.stack.tableName, Key: { pk: item.pk, sk: item.sk } }));
    expect(titlesOf((await get(`/sites/${site.siteId}/`)).text)).toEqual([]);

    const lines: string[] = [];
    const out = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const env = { DYNAMODB_ENDPOINT: t.stack.dynamo.endpoint, TABLE_NAME: t.stack.tableName };
    expect(await runSites(['relist', '--site', String(site.siteId)], out, env)).toBe(0);
    expect(JSON.parse(given(lines.pop(), 'an output line'))).toEqual({ site_id: site.siteId, pages: 3, relisted: 3 });
    expect(titlesOf((await get(`/sites/${site.siteId}/`)).text)).toEqual(['What is old-two?', 'Title of old-one']);
    expect(titlesOf((await get(`/sites/${site.siteId}/categories/gear`)).text)).toEqual(['Title of old-one']);
    expect(titlesOf((await get(`/sites/${site.siteId}/topics/fit`)).text)).toEqual(['What is old-two?']);
    expect(await runSites(['relist', '--site', String(site.siteId)], out, env)).toBe(0);
    expect(JSON.parse(given(lines.pop(), 'an output line'))).toEqual({ site_id: site.siteId, pages: 3, relisted: 0 });
  });
});
