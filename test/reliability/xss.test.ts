import type { Browser, Page } from 'playwright-core';
import { chromiumFound, launchBrowser } from '../helpers/browser';
import { describeWith } from '../helpers/platform';
import { startTestStack, type TestStack } from '../helpers/local';

/*
 * An XSS corpus in a real headless Chromium. Each payload calls `__xss(n)` (or alert) if it ever runs;
 * it is put in every text field, URL field and block of an article and a question, published, and each
 * visitor page opened, then the dashboard's pages view, which shows the titles. The pages are opened
 * with their Content-Security-Policy bypassed, so what is checked is the escaping itself: no payload
 * runs, and the DOM has no event-handler attribute, script element or javascript:/data:/vbscript: URL
 * of one.
 */

/** Text payloads; `N` is the payload's number. */
const TEXTS = [
  '<script>__xss(N)</script>',
  '<img src=x onerror=__xss(N)>',
  '"><svg onload=__xss(N)>',
  "'><body onload=__xss(N)>",
  '" autofocus onfocus=__xss(N) x="',
  "' onmouseover='__xss(N)' x='",
  '<svg><script>__xss(N)</script></svg>',
  '<svg><a xlink:href="javascript:__xss(N)"><text>x</text></a></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=__xss(N)>',
  '<math><maction actiontype="statusline" xlink:href="javascript:__xss(N)">x</maction></math>',
  '&lt;script&gt;__xss(N)&lt;/script&gt;',
  '&#60;img src=x onerror=__xss(N)&#62;',
  '&#x3C;svg onload=__xss(N)&#x3E;',
  '</script><script>__xss(N)</script>',
  '<!--</script><script>__xss(N)</script>-->',
  '\u2028\u2029</script><script>__xss(N)</script>',
  '</SCRIPT ><script>__xss(N)</script>',
  '<style>*{background:url("javascript:__xss(N)")}</style>',
  '<div style="width:expression(__xss(N))">x</div>',
  '<iframe srcdoc="<script>parent.__xss(N)</script>"></iframe>',
  '<iframe src="javascript:parent.__xss(N)"></iframe>',
  '<a href="javascript:__xss(N)">x</a>',
  '<a href="&#106;avascript:__xss(N)">x</a>',
  '[click](javascript:__xss(N))',
  '[click](JaVaScRiPt:__xss(N))',
  '[click]( javascript:__xss(N))',
  '[click](data:text/html,<script>__xss(N)</script>)',
  '[click](vbscript:__xss(N))',
  '[x"onmouseover="__xss(N)](https://example.com/"onmouseover="__xss(N))',
  '<details open ontoggle=__xss(N)>',
  '<scr<script>ipt>__xss(N)</scr</script>ipt>',
  '<object data="javascript:__xss(N)"></object>',
  '<embed src="javascript:__xss(N)">',
  '<base href="javascript:__xss(N)//">',
  '<meta http-equiv="refresh" content="0;url=javascript:__xss(N)">',
  '<form action="javascript:__xss(N)"><button>x</button></form>',
  '<input autofocus onfocus=__xss(N)>',
  '<video><source onerror=__xss(N)></video>',
  '<img src=x onerror=alert(N)>',
  '\uff1cscript\uff1e__xss(N)\uff1c/script\uff1e',
  '<img src=x on\u0000error=__xss(N)>',
  '\u202e<img src=x onerror=__xss(N)>',
  '${__xss(N)}{{constructor.constructor("__xss(N)")()}}',
];

/** URL payloads, for the URL fields (cover_image, canonical_url, an image's url, a source's url). */
const URLS = [
  'javascript:__xss(N)',
  'JaVaScRiPt:__xss(N)',
  ' javascript:__xss(N)',
  'java\tscript:__xss(N)',
  'javascript://example.com/%0a__xss(N)',
  'data:text/html,<script>__xss(N)</script>',
  'data:image/svg+xml,<svg onload=__xss(N)>',
  'vbscript:__xss(N)',
  'https://example.com/"onerror="__xss(N)',
  "https://example.com/'onerror='__xss(N)",
  'https://example.com/#"><script>__xss(N)</script>',
];

const fill = (template: string, n: number) => template.replaceAll('N', String(n));

/** Every block type, in its shape and in others, with `p` in each text and `u` in each URL. */
function blocks(p: string, u: string) {
  return [
    { _type: 'heading', level: 2, text: p },
    { _type: 'heading', level: p, text: p },
    {
      _type: 'paragraph',
      text: `${p} [link](${u}) [page](page:${p}) [src-1]`,
      children: [
        { _type: 'span', text: p },
        { _type: 'sourceCitation', id: 'src-1' },
        { _type: p, text: p },
      ],
    },
    { _type: 'statBar', stats: [{ value: p, label: p }, p] },
    { _type: 'list', style: 'number', items: [p, `[x](${u})`, { text: p }] },
    { _type: 'list', style: p, items: [p] },
    { _type: 'quote', text: p, cite: p },
    { _type: 'image', url: u, alt: p, caption: p },
    { _type: 'image', url: 'https://example.com/a.png', src: u, alt: p, caption: p },
    { _type: 'callout', tone: 'warning', text: p },
    { _type: 'callout', tone: p, text: p },
    { _type: 'table', header: [p, p], rows: [[p, p], p] },
    { _type: p, text: p, html: p },
  ];
}

function articleOf(n: number, p: string, u: string) {
  return {
    slug: `xss-article-${n}`,
    title: p,
    meta_title: p,
    meta_description: p,
    excerpt: p,
    copy: `${p}\n\n[copy link](${u})`,
    keywords: [p],
    audience: p,
    goal: p,
    category: p,
    cover_image: u,
    canonical_url: u,
    schema_type: p,
    ai_model: p,
    related_article_ids: [p],
    related_question_ids: [p],
    body: blocks(p, u),
  };
}

function questionOf(n: number, p: string, u: string) {
  return {
    slug: `xss-question-${n}`,
    question: p,
    meta_title: p,
    meta_description: p,
    topics: [p],
    ai_model: p,
    related_article_ids: [p],
    answer: blocks(p, u),
    sources: [{ id: 'src-1', title: p, url: u, accessed_at: '2026-01-01' }],
  };
}

let t: TestStack;
let browser: Browser;
describeWith(chromiumFound, 'XSS in a browser', () => {
  beforeAll(async () => {
    t = await startTestStack();
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  /** Publishes `doc`; a URL the API refuses (400 on a URL field) is replaced by a harmless one, so the texts are still published. */
  async function publish(path: string, doc: Record<string, any>): Promise<{ url: string; refusedUrls: number }> {
    let reply = await t.call('POST', path, doc);
    let refusedUrls = 0;
    if (reply.status === 400) {
      const safe = 'https://example.com/safe';
      for (const issue of reply.body.issues as { path: string }[]) {
        refusedUrls++;
        const at = issue.path.replace(/\[(\d+)\]/g, '.$1').split('.');
        let parent: any = doc;
        for (const key of at.slice(0, -1)) parent = parent[key];
        parent[at.at(-1)!] = safe;
      }
      reply = await t.call('POST', path, doc);
    }
    expect([path, reply.status]).toEqual([path, reply.status === 200 ? 200 : 201]);
    return { url: reply.body.url as string, refusedUrls };
  }

  /** A page whose every way to run a payload is counted: `__xss` calls, dialogs, and what the DOM holds that could run. */
  async function watch(): Promise<{ page: Page; executed: number[]; close: () => Promise<void> }> {
    const context = await browser.newContext({ bypassCSP: true });
    const executed: number[] = [];
    await context.exposeBinding('__xssHit', (_source, n: number) => void executed.push(n));
    await context.addInitScript('window.__xss = (n) => window.__xssHit(n);');
    const page = await context.newPage();
    page.on('dialog', (dialog) => {
      executed.push(-1);
      void dialog.dismiss();
    });
    return { page, executed, close: () => context.close() };
  }

  /** Elements of the page that could run script: event-handler attributes, scripts other than JSON-LD, and script URLs. */
  const RUNNABLE = `(() => {
  const found = [];
  for (const el of document.querySelectorAll('*')) {
    if (el.tagName === 'SCRIPT' && el.type !== 'application/ld+json' && !el.src) found.push('script: ' + el.textContent.slice(0, 80));
    for (const attr of el.attributes) {
      const value = attr.value.replace(/[\\s\\u0000-\\u001f]/g, '').toLowerCase();
      if (attr.name.startsWith('on')) found.push(el.tagName + ' ' + attr.name);
      if (['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'srcdoc', 'content'].includes(attr.name) && /^(javascript|vbscript|data:text\\/html|data:image\\/svg)/.test(value)) found.push(el.tagName + ' ' + attr.name + '=' + attr.value.slice(0, 60));
      if (attr.name === 'style' && /expression|javascript/i.test(attr.value)) found.push(el.tagName + ' style');
    }
  }
  return found;
})()`;

  it('runs no payload of the XSS corpus in any field or block of articles and questions, on visitor pages and in the dashboard', async () => {
    const payloads = TEXTS.length;
    const visitorPages: string[] = [];
    let refusedUrls = 0;
    for (let n = 0; n < payloads; n++) {
      const p = fill(TEXTS[n]!, n);
      const u = fill(URLS[n % URLS.length]!, n);
      const a = await publish('/articles', articleOf(n, p, u));
      const q = await publish('/questions', questionOf(n, p, u));
      const id = (await t.call('GET', `/questions?slug=xss-question-${n}`)).body.id as string;
      expect((await t.call('PUT', `/questions/${id}/summary`, { summary: p })).status).toBe(200);
      expect((await t.call('POST', `/questions/${id}/answers`, { author: p, blocks: blocks(p, u) })).status).toBe(201);
      visitorPages.push(a.url, q.url);
      refusedUrls += a.refusedUrls + q.refusedUrls;
    }

    const executed: string[] = [];
    const runnable: string[] = [];
    const watched = await watch();
    // The hook sees a payload that runs.
    await watched.page.setContent('<img src=x onerror=__xss(-2)>');
    for (let i = 0; i < 100 && watched.executed.length === 0; i++) await watched.page.waitForTimeout(10);
    expect(watched.executed).toEqual([-2]);
    watched.executed.length = 0;
    for (const url of visitorPages) {
      const reply = await watched.page.goto(url, { waitUntil: 'load' });
      expect([url, reply?.status()]).toEqual([url, 200]);
      // Handlers such as onfocus and ontoggle fire a moment after load.
      await watched.page.waitForTimeout(20);
      for (const item of await watched.page.evaluate<string[]>(RUNNABLE)) runnable.push(`${url}: ${item}`);
      // The JSON-LD block stays data: nothing closed it early, so it still parses.
      const ld = await watched.page.evaluate<unknown[]>(
        `[...document.querySelectorAll('script[type="application/ld+json"]')].map((s) => JSON.parse(s.textContent))`,
      );
      expect(ld.length).toBeGreaterThan(0);
    }
    executed.push(...watched.executed.map((n) => `visitor page: payload ${n}`));
    await watched.close();

    const dashboard = await watch();
    await dashboard.page.goto(`${t.url}/dashboard#key=${encodeURIComponent(t.key)}`);
    await dashboard.page.waitForSelector('.view[data-view="landscape"]:not([aria-busy])');
    await dashboard.page.click('nav a[data-view="pages"]');
    await dashboard.page.waitForSelector('.view[data-view="pages"]:not([aria-busy])');
    await dashboard.page.waitForTimeout(50);
    const shown = await dashboard.page.locator('[data-table="articles"] tbody tr').allInnerTexts();
    // The titles are there, as text.
    expect(shown.some((row) => row.includes(fill(TEXTS[0]!, 0)))).toBe(true);
    for (const item of await dashboard.page.evaluate<string[]>(RUNNABLE)) runnable.push(`dashboard: ${item}`);
    executed.push(...dashboard.executed.map((n) => `dashboard: payload ${n}`));
    await dashboard.close();

    console.log(
      `reliability: XSS corpus, ${visitorPages.length} visitor pages × ${payloads} payloads (one per page pair, in every field and block; ${refusedUrls} URL payloads refused at publish) + the dashboard's pages view: ${executed.length} executed, ${runnable.length} runnable elements`,
    );
    expect(executed).toEqual([]);
    expect(runnable).toEqual([]);
  }, 300_000);
});
