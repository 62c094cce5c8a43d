import { remainingUsd, usedShare, WINDOWS } from '../budget';
import { chartFigure, destroyCharts, mountCharts } from '../charts';
import { paletteColor } from '../colors';
import { h, replace, type Child } from '../dom';
import { fmtDay, fmtInt, fmtShare, fmtTime, fmtUsd, plural, roundUsd, SIMULATED } from '../format';
import { dataTable, type Column } from '../table';
import type { Budget, BudgetWindow, Usage, UsageDay, UsageLine } from '../types';
import { emptyState, section, swatch } from '../widgets';

/*
 * The usage report and the budget drawn: spend against budget, per day and per tool. The dashboard's
 * view (which adds the form that sets the budget) and the spend MCP App (a get_usage result, which
 * carries the budget) both draw with this.
 */

/** What the daily chart draws: billed and simulated money apart (never summed), or calls. */
type Measure = 'billed' | 'simulated' | 'calls';

/** The whole report; `budgetForm` (the dashboard's) goes at the foot of the budget panel. */
export function spendReport(usage: Usage, budget: Budget, budgetForm?: Child): HTMLElement[] {
  const out: HTMLElement[] = [];
  const simulated = usage.simulated_cost_usd ?? 0;
  // The sandbox is free unless it charged list prices; then its money is named simulated, never free.
  const free = simulated === 0 && usage.by_tool.some((line) => line.provider === 'sandbox');
  out.push(
    budgetPanel(budget, budgetForm),
    h(
      'section',
      { class: 'panel' },
      h('h2', null, `${fmtDay(usage.from)} to ${fmtDay(usage.to)} (UTC)`),
      h(
        'dl',
        { class: 'stats' },
        stat('Billed provider cost', fmtUsd(usage.cost_usd), 'cost'),
        simulated > 0 ? stat(`Simulated cost: ${SIMULATED}`, fmtUsd(simulated), 'simulated') : null,
        stat('Provider calls', fmtInt(usage.calls), 'calls'),
      ),
      free
        ? h(
            'p',
            { class: 'note' },
            'sandbox: simulated, free. These calls went to the offline sandbox provider, which costs nothing; with a real provider configured, its costs show here.',
          )
        : null,
      simulated > 0
        ? h(
            'p',
            { class: 'note', attrs: { 'data-note': 'simulated' } },
            `The sandbox charged the real providers’ list prices (SANDBOX_LIST_PRICES=1): ${fmtUsd(simulated)} ${SIMULATED}. It counts against the budget like billed money, and is shown apart from it.`,
          )
        : null,
    ),
  );
  if (usage.calls === 0) {
    out.push(
      emptyState(
        'No provider calls this month.',
        'Research tools and competitor monitoring record every paid provider call here, with its cost.',
      ),
    );
    return out;
  }
  const columns = lineColumns(simulated > 0);
  if (usage.by_day) out.push(daily(usage.by_day, usage, columns));
  out.push(
    section(
      'By tool',
      dataTable({
        name: 'by-tool',
        caption: 'Provider calls and cost per tool and provider this month, costliest first',
        columns,
        rows: usage.by_tool,
      }),
    ),
  );
  return out;
}

const stat = (label: string, value: string, name: string) =>
  h('div', null, h('dt', null, label), h('dd', { attrs: { 'data-total': name } }, value));

/** A usage line's columns: its cost under Billed or under Simulated, never both (a line is one or the other). */
function lineColumns(anySimulated: boolean): Column<UsageLine>[] {
  const columns: Column<UsageLine>[] = [
    { label: 'Tool', cell: (l) => l.tool, sortBy: (l) => l.tool },
    {
      label: 'Provider',
      cell: (l) =>
        l.provider !== 'sandbox'
          ? l.provider
          : l.simulated
            ? 'sandbox (list prices, not billed)'
            : 'sandbox (simulated, free)',
      sortBy: (l) => l.provider,
    },
    { label: 'Calls', cell: (l) => fmtInt(l.calls), sortBy: (l) => l.calls, numeric: true },
    {
      label: 'Billed',
      cell: (l) => (l.simulated ? '—' : fmtUsd(l.cost_usd)),
      sortBy: (l) => (l.simulated ? null : l.cost_usd),
      numeric: true,
    },
  ];
  if (anySimulated)
    columns.push({
      label: 'Simulated (not billed)',
      cell: (l) => (l.simulated ? fmtUsd(l.cost_usd) : '—'),
      sortBy: (l) => (l.simulated ? l.cost_usd : null),
      numeric: true,
    });
  return columns;
}

function budgetPanel(budget: Budget, budgetForm?: Child): HTMLElement {
  return h(
    'section',
    { class: 'panel', attrs: { 'aria-labelledby': 'budget-title', 'data-budget': '' } },
    h('h2', { attrs: { id: 'budget-title' } }, 'Budget'),
    h(
      'div',
      { class: 'budget-windows' },
      WINDOWS.map(({ key, adjective }) => budgetWindow(key, adjective, budget[key])),
    ),
    h(
      'p',
      { class: 'note' },
      'A paid provider call that would pass a limit is refused (402 budget_exceeded) before it is made; answers from stored data are free and always pass.',
    ),
    budgetForm,
  );
}

function budgetWindow(key: string, adjective: string, w: BudgetWindow): HTMLElement {
  const share = usedShare(w);
  const billed = Math.max(0, roundUsd(w.spent_usd - w.simulated_usd));
  const field = (label: string, value: string, name: string) =>
    h('div', null, h('dt', null, label), h('dd', { attrs: { 'data-field': name } }, value));
  return h(
    'div',
    { class: 'budget-window', attrs: { 'data-window': key } },
    h('h3', null, `${key === 'daily' ? 'Today' : 'This month'} (UTC)`),
    share === null
      ? h('p', { class: 'used', attrs: { 'data-field': 'used' } }, `No ${adjective} limit.`)
      : h(
          'p',
          { class: 'used', attrs: { 'data-field': 'used' } },
          h('meter', {
            attrs: {
              min: 0,
              max: 1,
              low: 0.8,
              high: 0.999,
              optimum: 0,
              value: Math.min(1, share),
              'aria-label': `Share of the ${adjective} limit used`,
            },
          }),
          ` ${fmtShare(share)} of the ${adjective} limit used, ${fmtUsd(remainingUsd(w))} left`,
        ),
    h(
      'dl',
      { class: 'stats' },
      field('Limit', w.limit_usd === null ? 'no limit' : fmtUsd(w.limit_usd), 'limit'),
      field('Spent (billed)', fmtUsd(billed), 'billed'),
      w.simulated_usd > 0 ? field(`Spent, ${SIMULATED}`, fmtUsd(w.simulated_usd), 'simulated') : null,
      field('Reserved in flight', fmtUsd(w.reserved_usd), 'reserved'),
      field('Resets at', fmtTime(w.resets_at), 'resets'),
    ),
  );
}

/** Every UTC day from `from` to `to`, so quiet days show as gaps rather than vanish. */
function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(from.slice(0, 10)); t <= Date.parse(to); t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

function daily(byDay: UsageDay[], usage: Usage, lineColumns: Column<UsageLine>[]): HTMLElement {
  const days = daysOf(usage.from, usage.to);
  const tools = [...new Set(byDay.map((d) => d.tool))].sort();
  const simulated = (usage.simulated_cost_usd ?? 0) > 0;
  const value = (d: UsageDay, measure: Measure) =>
    measure === 'calls' ? d.calls : (measure === 'simulated') === Boolean(d.simulated) ? d.cost_usd : 0;
  const sum = (day: string, tool: string, measure: Measure) =>
    byDay.filter((d) => d.day === day && d.tool === tool).reduce((total, d) => total + value(d, measure), 0);
  const MEASURES: Record<Measure, { choice: string; axis: string; figure: string }> = {
    billed: { choice: 'Billed cost (USD)', axis: 'Billed cost (USD)', figure: 'Billed provider cost in USD' },
    simulated: {
      choice: 'Simulated cost (USD)',
      axis: 'Simulated cost (USD)',
      figure: `Provider cost in USD ${SIMULATED}`,
    },
    calls: { choice: 'Calls', axis: 'Calls', figure: 'Provider calls' },
  };
  // Cost is what matters, but with only free (sandbox) calls there is nothing to see in it: show simulated cost or calls then.
  let measure: Measure = usage.cost_usd > 0 ? 'billed' : simulated ? 'simulated' : 'calls';
  const box = h('div');
  const draw = () => {
    replace(
      box,
      chartFigure('spend', `${MEASURES[measure].figure} per day and tool. The table below has the figures.`, {
        type: 'bar',
        data: {
          labels: days.map((d) => d.slice(5)),
          datasets: tools.map((tool, i) => ({
            label: tool,
            data: days.map((day) => sum(day, tool, measure)),
            backgroundColor: paletteColor(i),
          })),
        },
        options: {
          maintainAspectRatio: false,
          scales: {
            x: { stacked: true, title: { display: true, text: 'Day (UTC)' } },
            y: { stacked: true, beginAtZero: true, title: { display: true, text: MEASURES[measure].axis } },
          },
        },
      }),
    );
  };
  const choice = (option: Measure) =>
    h(
      'label',
      null,
      h('input', {
        attrs: { type: 'radio', name: 'measure', value: option, checked: measure === option },
        on: {
          change: () => {
            measure = option;
            destroyCharts();
            draw();
            void mountCharts();
          },
        },
      }),
      ` ${MEASURES[option].choice}`,
    );
  const legend = h(
    'ul',
    { class: 'legend', attrs: { 'aria-label': 'Tools' } },
    tools.map((tool, i) =>
      h('li', { class: 'domain' }, swatch({ fill: paletteColor(i), border: paletteColor(i) }), tool),
    ),
  );
  const rows = [...byDay].sort((a, b) => b.day.localeCompare(a.day) || b.cost_usd - a.cost_usd);
  const table = dataTable<UsageDay>({
    name: 'by-day',
    caption: `Per day and tool: ${plural(rows.length, 'line')}`,
    columns: [{ label: 'Day', cell: (d) => d.day, sortBy: (d) => d.day }, ...lineColumns],
    rows,
  });
  draw();
  return section(
    'Per day',
    h(
      'fieldset',
      { class: 'measure' },
      h('legend', null, 'Chart'),
      choice('billed'),
      simulated ? choice('simulated') : null,
      choice('calls'),
    ),
    legend,
    box,
    table,
  );
}
