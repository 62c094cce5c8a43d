import { chartFigure } from '../charts';
import type { DomainStyles } from '../colors';
import { h } from '../dom';
import { fmtNum, fmtShare } from '../format';
import { dataTable } from '../table';
import type { RankHistory } from '../types';
import { domainLabel, emptyState, section } from '../widgets';

/*
 * serp_landscape's rank history drawn (history_days): share of voice over time in the competitors'
 * colours, winners and losers, and each keyword's and each published page's positions day by day. The
 * dashboard's landscape view and the keyword landscape App both draw with this.
 */

/** The id of a keyword's position history (its index in the history's keywords). */
const historyId = (history: RankHistory, keyword: string) =>
  `position-history-${history.keywords.findIndex((k) => k.keyword === keyword)}`;

/** A keyword row's way to its position history: a button that opens it below the table and goes there. */
export function positionHistoryButton(history: RankHistory, keyword: string): HTMLElement | string {
  const entry = history.keywords.find((k) => k.keyword === keyword);
  if (!entry) return '—';
  const site = Object.keys(entry.positions).find((d) => d === history.visibility.find((v) => v.is_site)?.domain);
  const latest = site ? [...(entry.positions[site] ?? [])].reverse().find((p) => p !== null) : undefined;
  const id = historyId(history, keyword);
  return h(
    'button',
    {
      class: 'small',
      attrs: { type: 'button', 'aria-controls': id, 'data-open-history': keyword },
      on: {
        click: () => {
          const details = document.getElementById(id);
          if (!(details instanceof HTMLDetailsElement)) return;
          details.open = true;
          details.scrollIntoView({ block: 'nearest' });
          details.querySelector('summary')?.focus();
        },
      },
    },
    latest === undefined ? 'Positions' : `Positions (now ${latest})`,
  );
}

/** Each keyword's positions day by day, the site's and each tracked competitor's, one closed details each. */
export function positionHistories(history: RankHistory, styles: DomainStyles): HTMLElement {
  return section(
    'Position history',
    history.keywords.map((entry) => {
      const domains = Object.keys(entry.positions);
      return h(
        'details',
        { class: 'position-history', attrs: { id: historyId(history, entry.keyword), 'data-history': entry.keyword } },
        h('summary', null, entry.keyword),
        dataTable<number>({
          name: 'positions',
          caption: `Positions of “${entry.keyword}” per day, newest first (—: not in the results checked, or no check that day)`,
          columns: [
            { label: 'Day', cell: (i) => history.days[i] ?? '' },
            ...domains.map((domain) => ({
              label: styles.of(domain).label,
              cell: (i: number) => entry.positions[domain]?.[i] ?? '—',
              numeric: true,
            })),
          ],
          rows: history.days.map((_d, i) => i).reverse(),
        }),
      );
    }),
  );
}

/** The history's sections: share of voice over time, winners and losers, the published pages' own positions, the keywords the site's URLs share. */
export function rankHistoryReport(history: RankHistory, styles: DomainStyles): HTMLElement[] {
  const covered = `${history.coverage.days_with_data} of ${history.coverage.days} days have rank data (${history.coverage.keywords_with_data} keywords checked)`;
  if (history.coverage.days_with_data === 0)
    return [
      section(
        'Share of voice over time',
        emptyState(
          `No rank data in the last ${history.coverage.days} days.`,
          'Track the topic or page with track_rankings {topic_id | page_id, cadence: "daily"}: its keywords are checked daily, and their history appears here.',
        ),
      ),
    ];
  return [sovOverTime(history, styles, covered), movers(history, styles), pages(history), cannibalisation(history)];
}

function sovOverTime(history: RankHistory, styles: DomainStyles, covered: string): HTMLElement {
  const lines = history.visibility.filter((v) => v.is_site || v.is_competitor);
  const chart = chartFigure(
    'sov-history',
    `Share of voice per day over ${history.days.length} days, one line per domain: ${lines.map((l) => styles.of(l.domain).label).join(', ')}. The table below has the figures.`,
    {
      type: 'line',
      data: {
        labels: history.days,
        datasets: lines.map((line) => {
          const style = styles.of(line.domain);
          return {
            label: style.isSite ? `${style.label} (your site)` : style.label,
            data: line.sov.map((v) => (v === null ? null : v * 100)),
            borderColor: style.fill,
            backgroundColor: style.fill,
            pointBorderColor: style.border,
            borderWidth: style.isSite ? 4 : 2.5,
            pointRadius: history.days.length > 31 ? 0 : 2,
            spanGaps: true,
          };
        }),
      },
      options: {
        maintainAspectRatio: false,
        interaction: { mode: 'index', intersect: false },
        scales: { y: { beginAtZero: true, title: { display: true, text: 'Share of voice (%)' } } },
      },
    },
  );
  const legend = h(
    'ul',
    { class: 'legend', attrs: { 'aria-label': 'Lines' } },
    lines.map((l) => h('li', null, domainLabel(styles.of(l.domain)))),
  );
  const last = (series: readonly (number | null)[]) => [...series].reverse().find((v) => v !== null) ?? null;
  const table = dataTable<(typeof history.visibility)[number]>({
    name: 'visibility',
    caption:
      'Visibility of each domain: estimated clicks a month (CTR of each position × the keyword’s monthly search volume) and share of voice, on the latest day with data',
    columns: [
      { label: 'Domain', cell: (v) => domainLabel(styles.of(v.domain), { showDomain: true }) },
      {
        label: 'Clicks a month (est.)',
        cell: (v) => fmtNum(last(v.clicks)),
        sortBy: (v) => last(v.clicks),
        numeric: true,
      },
      { label: 'Share of voice', cell: (v) => fmtShare(last(v.sov)), sortBy: (v) => last(v.sov), numeric: true },
    ],
    rows: history.visibility,
    rowClass: (v) => (v.is_site ? 'is-site' : v.is_competitor ? 'is-competitor' : undefined),
  });
  return section('Share of voice over time', h('p', { class: 'coverage-line' }, covered), chart, legend, table);
}

function movers(history: RankHistory, styles: DomainStyles): HTMLElement {
  const rows = [
    ...history.winners.map((m) => ({ ...m, what: m.keyword, kind: 'keyword up' })),
    ...history.losers.map((m) => ({ ...m, what: m.keyword, kind: 'keyword down' })),
    ...history.domains_up.map((m) => ({ ...m, what: styles.of(m.domain).label, kind: 'domain up' })),
    ...history.domains_down.map((m) => ({ ...m, what: styles.of(m.domain).label, kind: 'domain down' })),
  ];
  if (rows.length === 0)
    return section('Winners and losers', emptyState('Nothing moved over these days.', 'Positions held steady.'));
  const shown = (v: number | null, domain: boolean) => (v === null ? (domain ? '—' : 'not in results') : fmtNum(v));
  return section(
    'Winners and losers',
    dataTable<(typeof rows)[number]>({
      name: 'movers',
      caption:
        'What moved most over the window, first day with data against the last: your site’s position on a keyword, a domain’s estimated clicks a month',
      columns: [
        { label: 'Keyword or domain', cell: (r) => r.what, wrap: true },
        { label: 'Move', cell: (r) => r.kind },
        { label: 'From', cell: (r) => shown(r.from, r.kind.startsWith('domain')), numeric: true },
        { label: 'To', cell: (r) => shown(r.to, r.kind.startsWith('domain')), numeric: true },
        {
          label: 'Change',
          cell: (r) => `${r.change > 0 ? '+' : ''}${fmtNum(r.change)}`,
          sortBy: (r) => r.change,
          numeric: true,
        },
      ],
      rows,
      rowClass: (r) => (r.kind.endsWith('up') ? 'mover-up' : 'mover-down'),
    }),
  );
}

function pages(history: RankHistory): HTMLElement {
  if (history.pages.length === 0)
    return section(
      'Published pages',
      emptyState(
        'No published page in this scope.',
        'A cm_pages row whose published_id names a page of the site shows its own URL’s position here.',
      ),
    );
  const rows = history.pages.flatMap((page) => page.keywords.map((k) => ({ page, ...k })));
  const latest = (positions: readonly (number | null)[]) => [...positions].reverse().find((p) => p !== null) ?? null;
  return section(
    'Published pages',
    dataTable<(typeof rows)[number]>({
      name: 'page-positions',
      caption: 'The position of each published page’s own URL for its keywords',
      columns: [
        { label: 'Page', cell: (r) => r.page.title, wrap: true },
        { label: 'Keyword', cell: (r) => r.keyword, wrap: true },
        {
          label: 'Days ranked',
          cell: (r) => `${r.positions.filter((p) => p !== null).length} of ${history.days.length}`,
          numeric: true,
        },
        { label: 'Latest', cell: (r) => latest(r.positions) ?? '—', sortBy: (r) => latest(r.positions), numeric: true },
        { label: 'URL', cell: (r) => r.page.url, wrap: true },
      ],
      rows,
    }),
  );
}

/** The keywords two or more of the site's URLs rank for: each URL's share and days as the site's best. */
function cannibalisation(history: RankHistory): HTMLElement {
  if (history.cannibalisation.length === 0)
    return section(
      'Cannibalisation',
      emptyState('No keyword is shared by two of your URLs.', 'Each keyword checked had one URL of your site at most.'),
    );
  const rows = history.cannibalisation.flatMap((k) => k.urls.map((u) => ({ ...u, k })));
  return section(
    'Cannibalisation',
    dataTable<(typeof rows)[number]>({
      name: 'cannibalisation',
      caption:
        'Keywords two or more of your URLs rank for: each URL’s share of the clicks your URLs earned on it (CTR of each position), the days it was your best result, the days they ranked together and the times the best URL changed',
      columns: [
        { label: 'Keyword', cell: (r) => r.k.keyword, wrap: true },
        { label: 'URL', cell: (r) => r.url, wrap: true },
        { label: 'Share', cell: (r) => fmtShare(r.share), sortBy: (r) => r.share, numeric: true },
        { label: 'Days best', cell: (r) => r.best_days, numeric: true },
        { label: 'Days together', cell: (r) => r.k.shared_days, numeric: true },
        { label: 'Swaps', cell: (r) => r.k.swaps, numeric: true },
      ],
      rows,
    }),
  );
}
