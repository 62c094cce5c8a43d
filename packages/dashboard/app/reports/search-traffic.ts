import { chartFigure } from '../charts';
import { SITE_COLOR } from '../colors';
import { h } from '../dom';
import { fmtChange, fmtInt, fmtNum, fmtPoints, fmtShare, plural } from '../format';
import { dataTable, type Column } from '../table';
import type { KeywordCandidate, QueueEntry, SearchTraffic, TrafficFigures, TrafficPage, TrafficQuery } from '../types';
import { emptyState, section, stat } from '../widgets';

/*
 * search_traffic drawn (docs/api/tracking-tools.md#search_traffic): the window's figures against the
 * window before, the top pages and their queries, the pages per query, the keyword candidates and the
 * refresh queue. The reply has totals per window, not per day, so the chart is the pages' clicks, the
 * figures the table beside it. The dashboard's view and the search traffic MCP App both draw with this.
 */

/** A decayed page's likely cause, as the queue names it (docs/api/decisions.md#decay). */
const CAUSE_NAMES: Record<QueueEntry['cause'], string> = {
  positions_lost: 'Positions lost',
  ai_overview: 'An AI Overview appeared (CTR fell at a steady position)',
  ctr_fell: 'CTR fell at a steady position',
  demand_fell: 'Demand fell (fewer impressions at a steady position)',
  page_changed: 'The page changed or a page it links to was taken down',
  unknown: 'Not clear from the data',
};

const STATUS_NAMES: Record<QueueEntry['status'], string> = {
  flagged: 'flagged',
  measuring: 'measuring',
  recovered: 'recovered',
  not_recovered: 'not recovered',
};
const STATUS_CLASSES: Record<QueueEntry['status'], string> = {
  flagged: 'badge',
  measuring: 'badge',
  recovered: 'badge good',
  not_recovered: 'badge bad',
};

/** The figures' columns of a list's items, after its own first columns. */
function figureColumns<T extends TrafficFigures>(): Column<T>[] {
  return [
    { label: 'Clicks', cell: (r) => fmtInt(r.clicks), sortBy: (r) => r.clicks, numeric: true },
    { label: 'Impressions', cell: (r) => fmtInt(r.impressions), sortBy: (r) => r.impressions, numeric: true },
    { label: 'CTR', cell: (r) => fmtShare(r.ctr), sortBy: (r) => r.ctr, numeric: true },
    { label: 'Avg. position', cell: (r) => fmtNum(r.position), sortBy: (r) => r.position, numeric: true },
  ];
}

/** A short list inside a cell: each item's name and its clicks. */
const clicksList = (items: readonly { name: string; clicks: number }[]) =>
  items.length === 0
    ? '—'
    : h(
        'ul',
        { class: 'cell-list' },
        items.map((i) => h('li', null, i.name, h('span', { class: 'muted' }, ` ${plural(i.clicks, 'click')}`))),
      );

/** The whole report of a reply. */
export function searchTrafficReport(data: SearchTraffic): HTMLElement[] {
  if (!data.connected)
    return [
      emptyState(
        'No Search Console figures yet.',
        data.note ?? 'The site has no Search Console days: connect its property, and the daily import stores them.',
      ),
    ];
  return [
    totalsPanel(data),
    pagesPanel(data.pages),
    queriesPanel(data.queries),
    candidatesPanel(data.keyword_candidates),
    cannibalisationPanel(data.cannibalisation),
    ...(data.refresh_queue ? [queuePanel(data.refresh_queue)] : []),
  ];
}

/** What the figures are of: the site, or the page or topic asked for, by its name. */
const scopeInWords = (scope: SearchTraffic['scope']) =>
  scope.type === 'site' ? 'The whole site' : `The ${scope.type} “${scope.name}”`;

function totalsPanel(data: SearchTraffic): HTMLElement {
  const { totals, previous_totals: before, deltas } = data;
  const figure = (name: keyof TrafficFigures, label: string, value: string, change: string, was: string) =>
    stat(
      label,
      h(
        'span',
        null,
        h('span', { attrs: { 'data-field': name } }, value),
        ' ',
        h('span', { class: 'delta', attrs: { 'data-delta': name } }, change),
        h('span', { class: 'muted delta-was' }, ` (was ${was})`),
      ),
    );
  const clicksChange = deltas.clicks_change === null ? '' : ` (${fmtChange(deltas.clicks_change, (v) => fmtShare(v))})`;
  return section(
    data.window && data.previous_window
      ? `${data.window.from} to ${data.window.to}, against ${data.previous_window.from} to ${data.previous_window.to}`
      : 'Search traffic',
    h(
      'dl',
      { class: 'stats', attrs: { 'data-traffic-totals': '' } },
      figure(
        'clicks',
        'Clicks',
        fmtInt(totals.clicks),
        fmtChange(deltas.clicks, fmtInt) + clicksChange,
        fmtInt(before.clicks),
      ),
      figure(
        'impressions',
        'Impressions',
        fmtInt(totals.impressions),
        fmtChange(deltas.impressions, fmtInt),
        fmtInt(before.impressions),
      ),
      figure('ctr', 'CTR', fmtShare(totals.ctr), fmtPoints(deltas.ctr), fmtShare(before.ctr)),
      figure('position', 'Avg. position', fmtNum(totals.position), fmtChange(deltas.position), fmtNum(before.position)),
    ),
    h(
      'p',
      { class: 'note' },
      `${scopeInWords(data.scope)}, as Search Console counts it (dates both included). Changes are this window minus the one before; a position going up is a worse place (1 is first). Search Console’s figures lag two to three days: the window ends on the last day stored.`,
    ),
    data.note ? h('p', { class: 'note' }, data.note) : null,
  );
}

function pagesPanel(pages: readonly TrafficPage[]): HTMLElement {
  if (pages.length === 0)
    return section('Top pages', h('p', { class: 'muted' }, 'No page had impressions in the window.'));
  const chart = chartFigure(
    'traffic-pages',
    `Clicks in the window per page, ${plural(pages.length, 'page')}, most first. The table beside it has the figures.`,
    {
      type: 'bar',
      data: {
        labels: pages.map((p) => p.url.replace(/^https?:\/\/[^/]+/, '') || '/'),
        datasets: [{ label: 'Clicks', data: pages.map((p) => p.clicks), backgroundColor: SITE_COLOR }],
      },
      options: {
        indexAxis: 'y',
        maintainAspectRatio: false,
        scales: { x: { beginAtZero: true, title: { display: true, text: 'Clicks' } } },
      },
    },
  );
  return section(
    'Top pages',
    chart,
    dataTable<TrafficPage>({
      name: 'traffic-pages',
      caption: 'Pages with most clicks in the window, each with its top queries',
      columns: [
        { label: 'Page', cell: (p) => p.url, sortBy: (p) => p.url, wrap: true },
        ...figureColumns<TrafficPage>(),
        {
          label: 'Top queries',
          cell: (p) => clicksList(p.queries.map((q) => ({ name: q.query, clicks: q.clicks }))),
          wrap: true,
        },
      ],
      rows: pages,
    }),
  );
}

function queriesPanel(queries: readonly TrafficQuery[]): HTMLElement {
  return section(
    'Queries and their pages',
    queries.length === 0
      ? h('p', { class: 'muted' }, 'No query had impressions in the window.')
      : dataTable<TrafficQuery>({
          name: 'traffic-queries',
          caption:
            'Queries with most clicks in the window, each with the pages of the site that showed for it (two pages on one query may compete)',
          columns: [
            { label: 'Query', cell: (q) => q.query, sortBy: (q) => q.query, wrap: true },
            {
              label: 'Tracked',
              cell: (q) => (q.tracked ? 'tracked' : h('span', { class: 'muted' }, 'not tracked')),
              sortBy: (q) => (q.tracked ? 1 : 0),
            },
            ...figureColumns<TrafficQuery>(),
            {
              label: 'Pages',
              cell: (q) => clicksList(q.pages.map((p) => ({ name: p.url, clicks: p.clicks }))),
              wrap: true,
            },
          ],
          rows: queries,
        }),
  );
}

function candidatesPanel(candidates: readonly KeywordCandidate[]): HTMLElement {
  return section(
    'Keyword candidates',
    h(
      'p',
      { class: 'note' },
      'Queries the site had impressions for that no keyword row tracks, most impressions first: ideas to add as keywords.',
    ),
    candidates.length === 0
      ? h('p', { class: 'muted' }, 'None: every query with impressions is tracked.')
      : dataTable<KeywordCandidate>({
          name: 'traffic-candidates',
          caption: 'Untracked queries with impressions in the window',
          columns: [
            { label: 'Query', cell: (c) => c.query, sortBy: (c) => c.query, wrap: true },
            ...figureColumns<KeywordCandidate>(),
          ],
          rows: candidates,
        }),
  );
}

function cannibalisationPanel(queries: SearchTraffic['cannibalisation']): HTMLElement {
  return section(
    'Pages sharing a query',
    h(
      'p',
      { class: 'note' },
      'Queries two or more of the site’s pages each got a fifth or more of the impressions of: they may compete (cannibalisation).',
    ),
    queries.length === 0
      ? h('p', { class: 'muted', attrs: { 'data-cannibalisation-empty': '' } }, 'None: each query has one page.')
      : dataTable<SearchTraffic['cannibalisation'][number]>({
          name: 'traffic-cannibalisation',
          caption: 'Queries shared by pages of the site, tracked first, with each page’s share of the impressions',
          columns: [
            { label: 'Query', cell: (q) => q.query, sortBy: (q) => q.query, wrap: true },
            {
              label: 'Tracked',
              cell: (q) => (q.tracked ? 'tracked' : h('span', { class: 'muted' }, 'not tracked')),
              sortBy: (q) => (q.tracked ? 1 : 0),
            },
            { label: 'Impressions', cell: (q) => fmtInt(q.impressions), sortBy: (q) => q.impressions, numeric: true },
            {
              label: 'Pages (share of impressions)',
              cell: (q) =>
                h(
                  'ul',
                  { class: 'cell-list' },
                  q.pages.map((p) => h('li', null, p.url, h('span', { class: 'muted' }, ` ${fmtShare(p.share)}`))),
                ),
              wrap: true,
            },
          ],
          rows: queries,
        }),
  );
}

function queuePanel(queue: NonNullable<SearchTraffic['refresh_queue']>): HTMLElement {
  const measure = (e: QueueEntry) =>
    e.measured
      ? `${plural(e.measured.clicks_after, 'click')} in the 28 days after (measured ${e.measured.measured_on})`
      : e.measure_due_on
        ? `due ${e.measure_due_on}`
        : '—';
  return section(
    'Refresh queue',
    h(
      'p',
      { class: 'note' },
      'Pages whose clicks over 28 days fell by a fifth or more against the 28 days before, most clicks at risk first, with the likely cause. A republished page is measured 28 days later: recovered at 80 % of its clicks before.',
    ),
    queue.entries.length === 0
      ? h('p', { class: 'muted', attrs: { 'data-queue-empty': '' } }, 'No decayed page: nothing to refresh.')
      : dataTable<QueueEntry>({
          name: 'refresh-queue',
          caption: 'Decayed pages, most clicks at risk first',
          columns: [
            { label: 'Page', cell: (e) => e.url, wrap: true },
            {
              label: 'Cause',
              cell: (e) => h('span', { attrs: { 'data-cause': e.cause } }, CAUSE_NAMES[e.cause]),
              wrap: true,
            },
            { label: 'Clicks before', cell: (e) => fmtInt(e.clicks_before), numeric: true },
            { label: 'Clicks now', cell: (e) => fmtInt(e.clicks_now), numeric: true },
            { label: 'At risk', cell: (e) => fmtInt(e.clicks_at_risk), numeric: true },
            {
              label: 'Status',
              cell: (e) =>
                h(
                  'span',
                  { class: STATUS_CLASSES[e.status], attrs: { 'data-status': e.status } },
                  STATUS_NAMES[e.status],
                ),
            },
            { label: 'Flagged on', cell: (e) => e.flagged_on },
            { label: 'Measure', cell: measure, wrap: true },
          ],
          rows: queue.entries,
        }),
    queue.next_cursor
      ? h('p', { class: 'note' }, `More entries follow: the agent reads them with queue_cursor.`)
      : null,
  );
}
