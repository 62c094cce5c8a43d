import type { DomainStyles } from '../colors';
import { h } from '../dom';
import { DEVICE_NAMES, fmtNum, fmtPct } from '../format';
import type { RankHistory } from '../types';
import { section, stat } from '../widgets';
import { dayPoints, dayTable, domainLines, lastValue } from './over-time';

/*
 * Visibility as rank trackers show it (docs/api/research-tools.md#visibility): per day, the share of the
 * most a domain could have (100 % = first on every keyword checked), the site's estimated clicks a day
 * beside it, on the device and CTR curve the history names.
 */

/** The history's visibility over time: the site's latest figures, a line per tracked domain, and the figures per day. */
export function visibilityOverTime(history: RankHistory, styles: DomainStyles): HTMLElement {
  const lines = history.visibility.filter((v) => v.is_site || v.is_competitor);
  const site = history.visibility.find((v) => v.is_site);
  const [chart, legend] = domainLines(
    {
      name: 'visibility',
      summary: `Visibility per day over ${history.days.length} days, 0 to 100 % (100 %: first on every keyword checked), one line per domain: ${lines.map((l) => styles.of(l.domain).label).join(', ')}. The table below has the figures.`,
      axis: 'Visibility (%)',
      pointRadius: dayPoints(history.days),
    },
    history.days,
    lines.map((l) => ({ domain: l.domain, values: l.visibility_pct })),
    styles,
  );
  const perDay = dayTable(
    'visibility-days',
    `Visibility per day, newest first (100 %: first on every keyword checked that day), and your site’s estimated clicks a day (${history.ctr_curve})`,
    history.days,
    [
      ...lines.map((l) => ({ label: styles.of(l.domain).label, cell: (i: number) => fmtPct(l.visibility_pct[i]) })),
      { label: 'Your clicks a day (estimated)', cell: (i: number) => fmtNum(site?.estimated_clicks_per_day[i]) },
    ],
  );
  return section(
    'Visibility',
    h(
      'dl',
      { class: 'stats', attrs: { 'data-visibility': '' } },
      stat(
        'Your visibility',
        h('span', { attrs: { 'data-field': 'visibility' } }, fmtPct(lastValue(site?.visibility_pct ?? []))),
      ),
      stat(
        'Estimated clicks a day',
        h('span', { attrs: { 'data-field': 'clicks' } }, fmtNum(lastValue(site?.estimated_clicks_per_day ?? []))),
      ),
      stat('Device', h('span', { attrs: { 'data-field': 'device' } }, DEVICE_NAMES[history.device])),
      stat('CTR curve', h('code', { attrs: { 'data-field': 'curve' } }, history.ctr_curve)),
    ),
    h(
      'p',
      { class: 'note' },
      'On the latest day with data. 100 % is first on every keyword checked; the clicks are an estimate, each keyword’s monthly searches × the CTR of its position on the curve named, over a month’s days, not measured traffic.',
    ),
    chart,
    legend,
    h('details', { class: 'figures' }, h('summary', null, 'Visibility per day (table)'), perDay),
  );
}
