import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { given } from '../helpers/client';

/*
 * The docs are the truth, so what they point at must be there: every relative link and its anchor (a
 * heading's slug as GitHub makes it, or an <a id>), and every repository path they name in code
 * (`packages/…`, `functions/…`, `infra/…`, `test/…`, `bench/…`, `docs/…`, `.ci/…`); and every anchor of a doc
 * the code names (`docs/api.md#oauth` in a comment, a description or an OpenAPI summary).
 */

const ROOT = join(__dirname, '../..');
/** The Markdown files under a folder of docs/, its subfolders' too (the contract's pages in docs/api/), but not the screenshots. */
const markdownUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === 'docs/screenshots' ? [] : markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
const DOCS = ['README.md', 'CHANGELOG.md', ...markdownUnder('docs')];

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
/** The text outside fenced code blocks, where links and headings are links and headings. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');
/** A heading's anchor, as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');

const anchors = new Map(
  DOCS.map((file) => {
    const text = prose(read(file));
    const headings = [...text.matchAll(/^#+ (.+)$/gm)].map((m) => slug(given(m[1], 'the m[1]')));
    const ids = [...text.matchAll(/<a id="([^"]+)"/g)].map((m) => given(m[1], 'the m[1]'));
    return [file, new Set([...headings, ...ids])];
  }),
);

it.each(DOCS)('%s: every relative link and anchor leads somewhere', (file) => {
  // Inline code (`[text](url)` as an example) is not a link.
  const text = prose(read(file)).replace(/`[^`\n]*`/g, '');
  const broken: string[] = [];
  for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(given(link, 'the link'))) continue;
    const [path = '', anchor] = given(link, 'the link').split('#');
    const target = path ? normalize(join(dirname(file), path)) : file;
    if (path && !existsSync(join(ROOT, target))) broken.push(`${link}: no ${target}`);
    else if (anchor && target.endsWith('.md') && !anchors.get(target)?.has(anchor))
      broken.push(`${link}: no heading or id "${anchor}" in ${target}`);
  }
  expect(broken).toEqual([]);
});

it.each(DOCS)('%s: every repository path it names is there', (file) => {
  const missing = [...prose(read(file)).matchAll(/`((?:packages|functions|infra|test|bench|docs|\.ci)\/[\w./-]+)`/g)]
    .map((m) => given(m[1], 'the m[1]').replace(/\.$/, ''))
    .filter((path) => !existsSync(join(ROOT, path)));
  expect(missing).toEqual([]);
});

/** The code under a folder: its TypeScript and JavaScript files, without dependencies, builds or recorded fixtures. */
const codeUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory())
      return ['node_modules', 'dist', 'cdk.out', 'fixtures'].includes(entry.name) ? [] : codeUnder(path);
    return /\.(ts|tsx|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });

// Text the service serves names the contract's anchors (an OpenAPI summary, a tool's field description), and
// changing it would change its replies; so an anchor the code names stays, as an <a id> on the map if it moves.
it('every anchor of a doc the code names is there', () => {
  const broken = ['packages', 'functions', 'infra', 'test', 'bench']
    .flatMap(codeUnder)
    .flatMap((file) =>
      [...read(file).matchAll(/\bdocs\/([\w./-]+\.md)#([\w-]+)/g)]
        .filter(([, doc, anchor]) => !anchors.get(`docs/${doc}`)?.has(given(anchor, 'the anchor')))
        .map(([ref]) => `${file}: ${ref}`),
    );
  expect(broken).toEqual([]);
});

/*
 * A doc a newcomer can read: no page over 60 KB. A topic that outgrows that becomes a map and a folder of
 * pages (docs/api.md and docs/api/), and the map links every page of its folder.
 */
const MAX_PAGE_BYTES = 60 * 1024;
const MAPS = { 'docs/api.md': 'docs/api', 'docs/architecture.md': 'docs/architecture' };

it.each(DOCS)('%s: is at most 60 KB', (file) => {
  expect(Buffer.byteLength(read(file))).toBeLessThanOrEqual(MAX_PAGE_BYTES);
});

it.each(Object.entries(MAPS))('%s links every page of %s/', (map, folder) => {
  const linked = new Set(
    [...prose(read(map)).matchAll(/\]\(([^)#\s]+)/g)].map((m) => join(dirname(map), given(m[1], 'the m[1]'))),
  );
  const pages = markdownUnder(folder);
  expect(pages.length).toBeGreaterThan(1);
  expect(pages.filter((page) => !linked.has(page))).toEqual([]);
});

// A link made before the split (`architecture.md#round-trips`) still lands on its section's entry on the map.
it("the architecture map keeps each page's title and sections as an anchor beside the link to it", () => {
  const map = prose(read('docs/architecture.md'));
  const missing = markdownUnder('docs/architecture').flatMap((page) =>
    [...prose(read(page)).matchAll(/^#{1,2} (.+)$/gm)]
      .map((m) => slug(given(m[1], 'the m[1]')))
      .filter((anchor) => {
        const entry = new RegExp(
          `<a id="${anchor}"></a>(?:<a id="[^"]+"></a>)*\\**\\[[^\\]]+\\]\\(${page.slice(5)}[#)]`,
        );
        return !entry.test(map);
      })
      .map((anchor) => `${page}#${anchor}`),
  );
  expect(missing).toEqual([]);
});
