import { chartFigure } from '../charts';
import type { DomainStyle, DomainStyles } from '../colors';
import { h, type Child } from '../dom';
import { fmtDay, fmtInt, fmtNum, fmtPct, fmtShare } from '../format';
import { dataTable, type Column } from '../table';
import type { Landscape, LandscapeKeyword } from '../types';
import { domainLabel, emptyState, section, stat } from '../widgets';
import { overviewCell, overviewDay } from './ai-overviews';
import { trackedFirst } from './domains';
import { positionHistories, positionHistoryButton, rankHistoryReport } from './rank-history';

/*
 * A serp_landscape result drawn: coverage, share of voice (over time, with history_days) and the keywords. The dashboard's view (which
 * fetches the result with the site's key and adds its paid actions) and the keyword landscape MCP App
 * (which is handed the result by its host, and acts on nothing) both draw with this.
 */

/** Bars in the share-of-voice chart: the site and every tracked competitor, then the strongest others up to this many. */
const SOV_BARS = 12;

/** What a face that can act adds to the report: the coverage panel's action and each keyword's. */
export interface LandscapeActions {
  coverage(landscape: Landscape): Child;
  keyword(k: LandscapeKeyword): Child;
}

/** The whole report, with its rank history when the result has one; without `actions` it has no buttons. */
export function landscapeReport(landscape: Landscape, styles: DomainStyles, actions?: LandscapeActions): HTMLElement[] {
  return [
    coverage(landscape, actions),
    shareOfVoice(landscape, styles),
    ...(landscape.history ? rankHistoryReport(landscape.history, styles) : []),
    keywordTables(landscape, styles, actions),
  ];
}

function coverage(landscape: Landscape, actions?: LandscapeActions): HTMLElement {
  const c = landscape.coverage;
  return h(
    'section',
    { class: 'panel coverage', attrs: { 'aria-label': 'Coverage' } },
    h(
      'h2',
      null,
      `${landscape.scope.type === 'topic' ? 'Topic' : landscape.scope.type === 'page' ? 'Page' : 'Keyword'}: ${landscape.scope.name}`,
    ),
    h(
      'dl',
      { class: 'stats' },
      stat('Keywords', fmtInt(c.keywords)),
      stat('With volume', `${fmtInt(c.with_volume)} (${fmtNum(c.volume_pct)}%)`),
      stat('With a stored SERP', `${fmtInt(c.with_serp)} (${fmtNum(c.serp_pct)}%)`),
      stat('Data', landscape.keywords.find((k) => k.serp)?.serp?.data_source ?? '—'),
    ),
    actions ? h('div', { class: 'actions' }, actions.coverage(landscape)) : null,
  );
}

function verdictText(landscape: Landscape, styles: DomainStyles): string {
  const { verdict, verdict_reason, domains } = landscape.sov;
  if (!verdict) return `No verdict: ${verdict_reason ?? 'nothing to compare yet.'}`;
  const site = domains.find((d) => d.is_site);
  const rival =
    domains.filter((d) => d.is_competitor).sort((a, b) => b.sov - a.sov)[0] ??
    domains.filter((d) => !d.is_site).sort((a, b) => b.sov - a.sov)[0];
  const against = rival ? `${styles.of(rival.domain).label} (${fmtShare(rival.sov)})` : 'the others';
  const words = { leads: 'leads', contends: 'contends with', trails: 'trails' }[verdict];
  return `Your site ${words} ${against}, with ${fmtShare(site?.sov ?? 0)} share of voice.`;
}

function shareOfVoice(landscape: Landscape, styles: DomainStyles): HTMLElement {
  const domains = landscape.sov.domains;
  const verdict = h(
    'p',
    { class: `verdict verdict-${landscape.sov.verdict ?? 'none'}` },
    verdictText(landscape, styles),
  );
  if (domains.length === 0)
    return section(
      'Share of voice',
      verdict,
      emptyState(
        'No SERPs stored yet.',
        'Share of voice is computed from stored SERPs: pull them with serp_landscape depth list.',
      ),
    );
  const bars = trackedFirst(domains, SOV_BARS).sort((a, b) => b.sov - a.sov);
  const barStyles = bars.map((d) => styles.of(d.domain));
  const siteIndex = barStyles.findIndex((s) => s.isSite);
  const chart = chartFigure(
    'sov',
    `Share of voice by domain: ${bars.map((d) => `${styles.of(d.domain).label} ${fmtShare(d.sov)}`).join(', ')}.`,
    {
      type: 'bar',
      data: {
        labels: barStyles.map((s) => (s.isSite ? `★ ${s.label} (your site)` : s.label)),
        datasets: [
          {
            label: 'Share of voice',
            data: bars.map((d) => d.sov * 100),
            backgroundColor: barStyles.map((s) => s.fill),
            borderColor: barStyles.map((s) => s.border),
            borderWidth: barStyles.map((s) => (s.isSite ? 2 : 1)),
            barPercentage: 0.8,
          },
        ],
      },
      options: {
        indexAxis: 'y',
        maintainAspectRatio: false,
        scales: {
          x: { beginAtZero: true, title: { display: true, text: 'Share of voice (%)' } },
          y: { ticks: { font: (c) => ({ weight: c.index === siteIndex ? 'bold' : 'normal' }) } },
        },
        plugins: { tooltip: { callbacks: { label: (item) => `${fmtNum(item.parsed.x)}%` } } },
      },
    },
  );
  chart.classList.add(`bars-${bars.length > 8 ? 'many' : 'few'}`);
  const table = dataTable<(typeof domains)[number]>({
    name: 'sov',
    caption: `Share of voice of the charted domains, their visibility (100 %: first on every keyword) and their AI Overview share (of the overviews’ citations, by search volume): your site, tracked competitors in their colours, and the strongest others${domains.length > bars.length ? ` (${domains.length - bars.length} more domains not shown)` : ''}`,
    columns: [
      {
        label: 'Domain',
        cell: (d) => domainLabel(styles.of(d.domain), { showDomain: true }),
        sortBy: (d) => styles.of(d.domain).label.toLowerCase(),
      },
      { label: 'Share of voice', cell: (d) => fmtShare(d.sov), sortBy: (d) => d.sov, numeric: true },
      {
        label: 'Visibility',
        cell: (d) => fmtPct(d.visibility_pct),
        sortBy: (d) => d.visibility_pct,
        numeric: true,
      },
      { label: 'AI Overview share', cell: (d) => fmtShare(d.ai_sov), sortBy: (d) => d.ai_sov, numeric: true },
      {
        label: 'Keywords ranked',
        cell: (d) => fmtInt(d.keywords_ranked),
        sortBy: (d) => d.keywords_ranked,
        numeric: true,
      },
      { label: 'Kind', cell: (d) => (d.is_site ? 'your site' : d.is_competitor ? 'tracked competitor' : 'other') },
    ],
    rows: bars,
    rowClass: (d) => (d.is_site ? 'is-site' : d.is_competitor ? 'is-competitor' : undefined),
  });
  return section('Share of voice', verdict, chart, table);
}

function bestCompetitor(k: LandscapeKeyword, styles: DomainStyles): { style: DomainStyle; position: number } | null {
  const best = [...(k.serp?.competitor_positions ?? [])].sort((a, b) => a.position - b.position)[0];
  return best ? { style: styles.of(best.domain), position: best.position } : null;
}

function keywordTables(landscape: Landscape, styles: DomainStyles, actions?: LandscapeActions): HTMLElement {
  const columns: Column<LandscapeKeyword>[] = [
    { label: 'Keyword', cell: (k) => k.keyword, sortBy: (k) => k.keyword, wrap: true },
    { label: 'Volume', cell: (k) => fmtInt(k.volume), sortBy: (k) => k.volume, numeric: true },
    {
      label: 'CPC (USD)',
      cell: (k) => (k.cpc_usd === null ? '—' : `$${k.cpc_usd.toFixed(2)}`),
      sortBy: (k) => k.cpc_usd,
      numeric: true,
    },
    { label: 'Competition', cell: (k) => fmtNum(k.competition), sortBy: (k) => k.competition, numeric: true },
    { label: 'Intent', cell: (k) => k.intent ?? '—', sortBy: (k) => k.intent },
    { label: 'Score', cell: (k) => fmtNum(k.score), sortBy: (k) => k.score, numeric: true },
    {
      label: 'Site position',
      cell: (k) => (k.serp ? (k.serp.site_position ?? 'not in top 20') : 'no SERP'),
      sortBy: (k) => k.serp?.site_position ?? null,
      numeric: true,
    },
    {
      label: 'AI Overview',
      cell: (k) =>
        k.serp?.ai_overview ? overviewCell(overviewDay(k.serp.ai_overview.shown, k.serp.ai_overview.site_url)) : '—',
      sortBy: (k) => (k.serp?.ai_overview ? overviewDay(k.serp.ai_overview.shown, k.serp.ai_overview.site_url) : null),
    },
    {
      label: 'Best competitor',
      cell: (k) => {
        const best = bestCompetitor(k, styles);
        return best && domainLabel(best.style);
      },
      sortBy: (k) => bestCompetitor(k, styles)?.style.label ?? null,
    },
    {
      label: 'Its position',
      cell: (k) => bestCompetitor(k, styles)?.position ?? '—',
      sortBy: (k) => bestCompetitor(k, styles)?.position ?? null,
      numeric: true,
    },
    {
      label: 'SERP of',
      cell: (k) => (k.serp ? `${fmtDay(k.serp.fetched_at)} (${k.serp.locale})` : '—'),
      sortBy: (k) => k.serp?.fetched_at ?? null,
    },
  ];
  const { history } = landscape;
  if (history) columns.push({ label: 'Position history', cell: (k) => positionHistoryButton(history, k.keyword) });
  if (actions) columns.push({ label: 'Action', cell: (k) => actions.keyword(k) });
  const committed = landscape.keywords.filter((k) => !k.is_idea);
  const ideas = landscape.keywords.filter((k) => k.is_idea);
  return h(
    'div',
    null,
    section(
      'Keywords',
      committed.length
        ? dataTable({
            name: 'keywords',
            caption: 'Committed keywords, best score first',
            columns,
            rows: committed,
            rowClass: (k) => (k.serp?.site_position ? 'ranked' : undefined),
          })
        : emptyState(
            'No committed keywords in this scope.',
            'Attach keywords with get_keywords {topic_id, seeds}: attaching commits them.',
          ),
    ),
    history ? positionHistories(history, styles) : null,
    section(
      'Ideas',
      ideas.length
        ? dataTable({
            name: 'ideas',
            caption: 'Keyword ideas (candidates, not committed)',
            columns: columns.slice(0, 6),
            rows: ideas,
          })
        : emptyState(
            'No keyword ideas in this scope.',
            'Ideas here are those research in keywords mode stored for a page of this scope (page_id); attach one to a topic to commit it.',
          ),
    ),
  );
}
