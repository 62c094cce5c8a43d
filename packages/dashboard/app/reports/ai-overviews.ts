import type { DomainStyles } from '../colors';
import { h } from '../dom';
import { fmtInt, fmtShare, plural } from '../format';
import { dataTable } from '../table';
import type { RankHistory } from '../types';
import { domainLabel, emptyState, section } from '../widgets';
import { trackedFirst } from './domains';
import { dayPoints, dayTable, domainLines } from './over-time';

/*
 * Google's AI Overviews beside the organic positions (docs/api/research-tools.md#ai-overviews): per
 * keyword and day whether one was shown and whether it cited the site, a marker a day; and each
 * domain's AI Overview share of voice over time and beside its organic share.
 */

/** What a keyword's SERP of a day had: an AI Overview citing the site, one not citing it, none, or not recorded. */
type OverviewDay = 'cited' | 'shown' | 'absent' | 'unknown';

/** A day's state from the history's (or a stored SERP's) `shown` and the site's cited URL. */
export const overviewDay = (shown: boolean | null | undefined, siteUrl: string | null | undefined): OverviewDay =>
  shown === null || shown === undefined ? 'unknown' : !shown ? 'absent' : siteUrl ? 'cited' : 'shown';

/** Each state in words: a marker's label, and the keyword tables' cells. */
const OVERVIEW_WORDS: Record<OverviewDay, string> = {
  cited: 'AI Overview, cites your site',
  shown: 'AI Overview, not citing your site',
  absent: 'no AI Overview',
  unknown: 'not recorded',
};

/** A day's marker: its state in colour and shape, and in words for screen readers and on hover. */
const overviewMark = (state: OverviewDay, label: string, day?: string): HTMLElement =>
  h('span', {
    class: `aio-mark aio-${state}`,
    attrs: { role: 'img', 'aria-label': label, title: label, 'data-aio': state, 'data-day': day },
  });

/** A state as a table cell shows it: its marker and its words. */
export const overviewCell = (state: OverviewDay): HTMLElement =>
  h('span', { class: 'aio-cell' }, overviewMark(state, OVERVIEW_WORDS[state]), OVERVIEW_WORDS[state]);

/** The history's keyword entry of AI Overviews for `keyword` in `locale`, if it has one. */
export const overviewsOf = (history: RankHistory, keyword: string, locale: string) =>
  history.ai_overviews.keywords.find((k) => k.keyword === keyword && k.locale === locale);

/** The site's domain in the history (null: it has none). */
const siteOf = (history: RankHistory): string | null =>
  history.visibility.find((v) => v.is_site)?.domain ??
  history.ai_overviews.domains.find((d) => d.is_site)?.domain ??
  null;

/** The states of a keyword's days, aligned to the history's `days`. */
export function overviewDays(
  history: RankHistory,
  entry: RankHistory['ai_overviews']['keywords'][number],
): OverviewDay[] {
  const site = siteOf(history);
  return history.days.map((_d, i) => overviewDay(entry.shown[i], site ? entry.cited[site]?.[i] : null));
}

const MARKER_KEY: OverviewDay[] = ['cited', 'shown', 'absent', 'unknown'];
/** Rows of the AI Overview share table: the site and every tracked competitor, then the most cited others up to this many. */
const AI_SOV_ROWS = 12;

/** The AI Overviews of the history: the latest day in words, share of voice over time and beside organic, each keyword's days. */
export function aiOverviews(history: RankHistory, styles: DomainStyles): HTMLElement {
  const ai = history.ai_overviews;
  const latest = ai.shown.findLastIndex((n) => n !== null);
  if (latest < 0)
    return section(
      'AI Overviews',
      emptyState(
        `No check in the last ${history.days.length} days recorded an AI Overview.`,
        'Tracked keywords’ daily checks record whether Google showed one and the pages it cited; a SERP pulled live records none.',
      ),
    );
  const site = siteOf(history);
  const checked = ai.keywords.filter((k) => (k.shown[latest] ?? null) !== null).length;
  const cited = site ? ai.keywords.filter((k) => k.cited[site]?.[latest]).length : 0;
  const summary = h(
    'p',
    { class: 'history-note', attrs: { 'data-aio-summary': '' } },
    `On ${history.days[latest]}, ${fmtInt(ai.shown[latest])} of ${plural(checked, 'keyword')} checked showed an AI Overview; ${fmtInt(cited)} cited your site.`,
  );
  const lines = ai.domains.filter((d) => d.is_site || d.is_competitor);
  const [chart, legend] = domainLines(
    {
      name: 'ai-sov-history',
      summary: `AI Overview share of voice per day over ${history.days.length} days, one line per domain: ${lines.map((l) => styles.of(l.domain).label).join(', ')}. The tables below have the figures.`,
      axis: 'AI Overview share of voice (%)',
      pointRadius: dayPoints(history.days),
    },
    history.days,
    lines.map((l) => ({ domain: l.domain, values: l.sov.map((v) => (v === null ? null : v * 100)) })),
    styles,
  );
  const organic = (domain: string) => history.visibility.find((v) => v.domain === domain)?.sov[latest] ?? null;
  const rows = trackedFirst(ai.domains, AI_SOV_ROWS);
  const beside = dataTable<(typeof ai.domains)[number]>({
    name: 'ai-sov',
    caption: `AI Overview share of voice beside organic share of voice on ${history.days[latest]}: each domain’s share of the overviews’ citations, weighted by search volume, and the keywords whose overview cites it; your site, tracked competitors, then the most cited others${ai.domains.length > rows.length ? ` (${ai.domains.length - rows.length} more domains not shown)` : ''}`,
    columns: [
      {
        label: 'Domain',
        cell: (d) => domainLabel(styles.of(d.domain), { showDomain: true }),
        sortBy: (d) => styles.of(d.domain).label.toLowerCase(),
      },
      {
        label: 'AI Overview share',
        cell: (d) => fmtShare(d.sov[latest]),
        sortBy: (d) => d.sov[latest] ?? null,
        numeric: true,
      },
      {
        label: 'Keywords citing it',
        cell: (d) => fmtInt(d.cited[latest]),
        sortBy: (d) => d.cited[latest] ?? null,
        numeric: true,
      },
      {
        label: 'Organic share of voice',
        cell: (d) => fmtShare(organic(d.domain)),
        sortBy: (d) => organic(d.domain),
        numeric: true,
      },
    ],
    rows,
    rowClass: (d) => (d.is_site ? 'is-site' : d.is_competitor ? 'is-competitor' : undefined),
  });
  const perDay = dayTable(
    'ai-sov-days',
    'AI Overviews per day, newest first: the keywords that showed one, and each domain’s AI Overview share of voice',
    history.days,
    [
      { label: 'Keywords with an AI Overview', cell: (i) => fmtInt(ai.shown[i]) },
      ...lines.map((l) => ({ label: styles.of(l.domain).label, cell: (i: number) => fmtShare(l.sov[i]) })),
    ],
  );
  return section(
    'AI Overviews',
    summary,
    chart,
    legend,
    beside,
    h('details', { class: 'figures' }, h('summary', null, 'AI Overview share of voice per day (table)'), perDay),
    keywordDays(history),
  );
}

/** Each keyword's days as markers, with the days an overview was shown and cited the site, and the URL it cited last. */
function keywordDays(history: RankHistory): HTMLElement {
  const site = siteOf(history);
  const rows = history.ai_overviews.keywords.map((entry) => ({ entry, days: overviewDays(history, entry) }));
  const count = (days: OverviewDay[], ...states: OverviewDay[]) => days.filter((d) => states.includes(d)).length;
  const lastCited = (entry: RankHistory['ai_overviews']['keywords'][number]) =>
    (site ? [...(entry.cited[site] ?? [])].reverse().find((url) => url !== null) : null) ?? '—';
  return h(
    'div',
    null,
    h(
      'ul',
      { class: 'legend aio-key', attrs: { 'aria-label': 'Markers' } },
      MARKER_KEY.map((state) => h('li', null, overviewCell(state))),
    ),
    dataTable<(typeof rows)[number]>({
      name: 'ai-overviews',
      caption: `Each keyword’s AI Overview day by day, oldest first (${history.days[0] ?? ''} to ${history.days.at(-1) ?? ''}), the days one was shown, the days it cited your site, and the URL of yours it cited last`,
      columns: [
        { label: 'Keyword', cell: (r) => r.entry.keyword, sortBy: (r) => r.entry.keyword, wrap: true },
        {
          label: 'Days shown',
          cell: (r) => count(r.days, 'cited', 'shown'),
          sortBy: (r) => count(r.days, 'cited', 'shown'),
          numeric: true,
        },
        {
          label: 'Days citing you',
          cell: (r) => count(r.days, 'cited'),
          sortBy: (r) => count(r.days, 'cited'),
          numeric: true,
        },
        {
          label: 'Day by day',
          cell: (r) =>
            h(
              'span',
              { class: 'aio-days', attrs: { 'data-keyword': r.entry.keyword } },
              r.days.map((state, i) => {
                const day = history.days[i] ?? '';
                return overviewMark(state, `${day}: ${OVERVIEW_WORDS[state]}`, day);
              }),
            ),
        },
        { label: 'Your URL it cited last', cell: (r) => lastCited(r.entry), wrap: true },
      ],
      rows,
    }),
  );
}
