import { chartFigure } from '../charts';
import type { DomainStyles } from '../colors';
import { h } from '../dom';
import { dataTable, type Column } from '../table';
import { domainLabel } from '../widgets';

/*
 * What figures over time share: a line per domain in the competitors' colours with its legend (the rank
 * history's days, the backlinks trend's months), and a table of the history's days, newest first, as
 * its charts' figures.
 */

/** Points on a line over the history's days, none past a month of them (too many to tell apart). */
export const dayPoints = (days: readonly string[]): number => (days.length > 31 ? 0 : 2);

/** A domain's figure per day of the history, aligned to its `days` (null: no data that day). */
interface DomainSeries {
  domain: string;
  values: readonly (number | null)[];
}

/** The last value of a series that has data, or null. */
export const lastValue = (series: readonly (number | null)[]): number | null =>
  [...series].reverse().find((v) => v !== null) ?? null;

/**
 * The chart of `series` over `labels` (the days, or a trend's months), one line per domain in its
 * colour (the site's thickest) with points of `pointRadius`, then its legend.
 */
export function domainLines(
  chart: { name: string; summary: string; axis: string; pointRadius: number },
  labels: readonly string[],
  series: readonly DomainSeries[],
  styles: DomainStyles,
): [chart: HTMLElement, legend: HTMLElement] {
  const figure = chartFigure(chart.name, chart.summary, {
    type: 'line',
    data: {
      labels: [...labels],
      datasets: series.map((line) => {
        const style = styles.of(line.domain);
        return {
          label: style.isSite ? `${style.label} (your site)` : style.label,
          data: [...line.values],
          borderColor: style.fill,
          backgroundColor: style.fill,
          pointBorderColor: style.border,
          borderWidth: style.isSite ? 4 : 2.5,
          pointRadius: chart.pointRadius,
          spanGaps: true,
        };
      }),
    },
    options: {
      maintainAspectRatio: false,
      interaction: { mode: 'index', intersect: false },
      scales: { y: { beginAtZero: true, title: { display: true, text: chart.axis } } },
    },
  });
  const legend = h(
    'ul',
    { class: 'legend', attrs: { 'aria-label': 'Lines' } },
    series.map((l) => h('li', null, domainLabel(styles.of(l.domain)))),
  );
  return [figure, legend];
}

/** A table of the days, newest first: its first column the day, then `columns` (figures unless said), each of day `i`. */
export function dayTable(
  name: string,
  caption: string,
  days: readonly string[],
  columns: readonly Pick<Column<number>, 'label' | 'cell' | 'numeric'>[],
): HTMLElement {
  return dataTable<number>({
    name,
    caption,
    columns: [{ label: 'Day', cell: (i) => days[i] ?? '' }, ...columns.map((c) => ({ numeric: true, ...c }))],
    rows: days.map((_d, i) => i).reverse(),
  });
}
