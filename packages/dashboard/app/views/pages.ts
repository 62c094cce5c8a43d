import { h, replace } from '../dom';
import { fmtTime, plural } from '../format';
import { isPageListReply } from '../replies';
import { dataTable } from '../table';
import type { PageListRow, PageListReply } from '../types';
import type { View, ViewContext } from '../view';
import { emptyState, section } from '../widgets';

const KINDS = [
  { type: 'article', path: '/articles', heading: 'Articles', titleOf: (p: PageListRow) => p.title ?? p.slug },
  { type: 'question', path: '/questions', heading: 'Questions', titleOf: (p: PageListRow) => p.question ?? p.slug },
] as const;

const listPath = (path: string, cursor: string | null) =>
  `${path}?limit=50&suppressed_links=true${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

export const pagesView: View = {
  id: 'pages',
  label: 'Pages',
  title: 'Published pages',
  async render(ctx) {
    const first = await Promise.all(
      KINDS.map(async (kind) => ({ kind, list: await ctx.api.get(listPath(kind.path, null), isPageListReply) })),
    );
    if (first.every(({ list }) => list.items.length === 0)) {
      ctx.root.append(
        emptyState(
          'No pages yet.',
          'The editor service publishes pages with POST /articles and POST /questions; they are listed here with their state and links.',
        ),
      );
      return;
    }
    // Titles of every page loaded so far, to name the targets of suppressed links.
    const titles = new Map<string, string>();
    const hidden = first.flatMap(({ list }) => list.items).filter((p) => p.suppressed_links?.length).length;
    ctx.root.append(
      h(
        'p',
        { class: 'note' },
        hidden
          ? `${plural(hidden, 'page hides', 'pages hide')} links from readers because their target is not live (relink); they come back when the target does.`
          : 'No page hides a link from readers: every linked page is live.',
      ),
    );
    for (const { kind, list } of first) ctx.root.append(listing(ctx, kind, list, titles));
  },
};

function listing(
  ctx: ViewContext,
  kind: (typeof KINDS)[number],
  firstPage: PageListReply,
  titles: Map<string, string>,
): HTMLElement {
  const items: PageListRow[] = [];
  const box = h('div');
  const more = h('button', { attrs: { type: 'button' } }, `Load more ${kind.heading.toLowerCase()}`);
  let cursor: string | null = null;
  const show = (page: PageListReply) => {
    items.push(...page.items);
    for (const item of page.items) titles.set(item.id, kind.titleOf(item));
    cursor = page.next_cursor;
    more.hidden = cursor === null;
    replace(
      box,
      items.length
        ? table(kind, items, titles)
        : emptyState(`No ${kind.heading.toLowerCase()} yet.`, `Publish one with POST ${kind.path}.`),
    );
  };
  more.addEventListener('click', () => {
    more.disabled = true;
    ctx.api.get(listPath(kind.path, cursor), isPageListReply).then(
      (page) => {
        more.disabled = false;
        show(page);
      },
      (error: unknown) => {
        more.disabled = false;
        ctx.announce(error instanceof Error ? error.message : String(error));
      },
    );
  });
  show(firstPage);
  return section(kind.heading, box, h('div', { class: 'actions' }, more));
}

function reach(p: PageListRow): HTMLElement {
  if (p.deleted) return h('span', { class: 'badge bad' }, 'deleted');
  return p.live ? h('span', { class: 'badge good' }, 'live') : h('span', { class: 'badge' }, 'not live');
}

function table(kind: (typeof KINDS)[number], items: PageListRow[], titles: Map<string, string>): HTMLElement {
  return dataTable<PageListRow>({
    name: `${kind.type}s`,
    caption: `${kind.heading}, newest update first`,
    columns: [
      {
        label: kind.type === 'article' ? 'Title' : 'Question',
        cell: kind.titleOf,
        sortBy: (p) => kind.titleOf(p).toLowerCase(),
        wrap: true,
      },
      { label: 'Status', cell: (p) => p.status, sortBy: (p) => p.status },
      { label: 'Readers', cell: reach, sortBy: (p) => (p.deleted ? 2 : p.live ? 0 : 1) },
      { label: 'Updated', cell: (p) => fmtTime(p.updated_at), sortBy: (p) => p.updated_at },
      {
        label: 'Links hidden by relink',
        cell: (p) =>
          p.suppressed_links === undefined
            ? h('span', { class: 'muted' }, '—')
            : p.suppressed_links.length === 0
              ? h('span', { class: 'muted' }, 'none')
              : h(
                  'ul',
                  { class: 'suppressed' },
                  p.suppressed_links.map((link) =>
                    h(
                      'li',
                      { attrs: { 'data-suppressed': link.id } },
                      `${titles.get(link.id) ?? link.id} (${link.type}, since ${fmtTime(link.since)})`,
                    ),
                  ),
                ),
        sortBy: (p) => p.suppressed_links?.length ?? null,
        wrap: true,
      },
      {
        label: 'Visitor page',
        cell: (p) =>
          h('a', { attrs: { href: p.url, target: '_blank', rel: 'noopener' } }, p.live ? 'open' : 'open (not live)'),
      },
    ],
    rows: items,
    rowClass: (p) => (p.suppressed_links?.length ? 'has-suppressed' : undefined),
  });
}
