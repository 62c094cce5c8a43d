import type { DomainStyles } from '../colors';
import { h } from '../dom';
import { DEVICE_NAMES, fmtNum, fmtPct, fmtShare } from '../format';
import { dataTable, type Column } from '../table';
import type { RankHistory } from '../types';
import { domainLabel, emptyState, section } from '../widgets';
import { aiOverviews, overviewCell, overviewDays, overviewsOf } from './ai-overviews';
import { dayPoints, dayTable, domainLines, lastValue } from './over-time';
import { visibilityOverTime } from './visibility';

/*
 * serp_landscape's rank history drawn (history_days): visibility and share of voice over time in the
 * competitors' colours, AI Overviews beside them, winners and losers, and each keyword's and each
 * published page's positions day by day. The dashboard's landscape view and the keyword landscape App
 * both draw with this.
 */

/** The id of a keyword's position history (its index in the history's keywords). */
const historyId = (history: RankHistory, keyword: string) =>
  `position-history-${history.keywords.findIndex((k) => k.keyword === keyword)}`;

/** A keyword row's way to its position history: a button that opens it below the table and goes there. */
export function positionHistoryButton(history: RankHistory, keyword: string): HTMLElement | string {
  const entry = history.keywords.find((k) => k.keyword === keyword);
  if (!entry) return '—';
  const site = Object.keys(entry.positions).find((d) => d === history.visibility.find((v) => v.is_site)?.domain);
  const latest = site ? lastValue(entry.positions[site] ?? []) : null;
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
    latest === null ? 'Positions' : `Positions (now ${latest})`,
  );
}

/** Each keyword's positions day by day, the site's and each tracked competitor's, and its AI Overview, one closed details each. */
export function positionHistories(history: RankHistory, styles: DomainStyles): HTMLElement {
  return section(
    'Position history',
    history.keywords.map((entry) => {
      const domains = Object.keys(entry.positions);
      const overviews = overviewsOf(history, entry.keyword, entry.locale);
      const days = overviews ? overviewDays(history, overviews) : null;
      return h(
        'details',
        { class: 'position-history', attrs: { id: historyId(history, entry.keyword), 'data-history': entry.keyword } },
        h('summary', null, entry.keyword),
        dayTable(
          'positions',
          `Positions of “${entry.keyword}” per day, newest first (—: not in the results checked, or no check that day), and its AI Overview`,
          history.days,
          [
            ...domains.map((domain) => ({
              label: styles.of(domain).label,
              cell: (i: number) => entry.positions[domain]?.[i] ?? '—',
            })),
            ...(days
              ? [{ label: 'AI Overview', cell: (i: number) => overviewCell(days[i] ?? 'unknown'), numeric: false }]
              : []),
          ],
        ),
      );
    }),
  );
}

/** The history's sections: visibility, share of voice over time, AI Overviews, winners and losers, the published pages' own positions, the keywords the site's URLs share. */
export function rankHistoryReport(history: RankHistory, styles: DomainStyles): HTMLElement[] {
  const device = DEVICE_NAMES[history.device].toLowerCase();
  const covered = `Checks on ${device}: ${history.coverage.days_with_data} of ${history.coverage.days} days have rank data (${history.coverage.keywords_with_data} keywords checked)`;
  if (history.coverage.days_with_data === 0)
    return [
      section(
        'Share of voice over time',
        emptyState(
          `No rank data on ${device} in the last ${history.coverage.days} days.`,
          'Track the topic or page with track_rankings {topic_id | page_id, cadence: "daily", device}: its keywords are checked daily on that device, and their history appears here.',
        ),
      ),
    ];
  return [
    visibilityOverTime(history, styles),
    sovOverTime(history, styles, covered),
    aiOverviews(history, styles),
    movers(history, styles),
    pages(history),
    cannibalisation(history),
  ];
}

type DomainLine = RankHistory['visibility'][number];

/** A column of a domain's figure on the latest day it has one. */
const latestOf = (
  label: string,
  series: (v: DomainLine) => readonly (number | null)[],
  format: (n: number | null) => string,
): Column<DomainLine> => ({
  label,
  cell: (v) => format(lastValue(series(v))),
  sortBy: (v) => lastValue(series(v)),
  numeric: true,
});

function sovOverTime(history: RankHistory, styles: DomainStyles, covered: string): HTMLElement {
  const lines = history.visibility.filter((v) => v.is_site || v.is_competitor);
  const [chart, legend] = domainLines(
    {
      name: 'sov-history',
      summary: `Share of voice per day over ${history.days.length} days, one line per domain: ${lines.map((l) => styles.of(l.domain).label).join(', ')}. The table below has the figures.`,
      axis: 'Share of voice (%)',
      pointRadius: dayPoints(history.days),
    },
    history.days,
    lines.map((l) => ({ domain: l.domain, values: l.sov.map((v) => (v === null ? null : v * 100)) })),
    styles,
  );
  const table = dataTable<DomainLine>({
    name: 'visibility',
    caption:
      'Visibility of each domain on the latest day with data: visibility (100 %: first on every keyword), estimated clicks a day and estimated clicks a month (CTR of each position × the keyword’s monthly search volume), and share of voice',
    columns: [
      { label: 'Domain', cell: (v) => domainLabel(styles.of(v.domain), { showDomain: true }) },
      latestOf('Visibility', (v) => v.visibility_pct, fmtPct),
      latestOf('Clicks a day (est.)', (v) => v.estimated_clicks_per_day, fmtNum),
      latestOf('Clicks a month (est.)', (v) => v.clicks, fmtNum),
      latestOf('Share of voice', (v) => v.sov, fmtShare),
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
        {
          label: 'Latest',
          cell: (r) => lastValue(r.positions) ?? '—',
          sortBy: (r) => lastValue(r.positions),
          numeric: true,
        },
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
