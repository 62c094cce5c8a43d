import { chartFigure, destroyCharts, mountCharts } from '../charts';
import { PALETTE } from '../colors';
import { h, replace } from '../dom';
import { fmtDay, fmtInt, fmtUsd, plural } from '../format';
import { dataTable } from '../table';
import type { Usage, UsageDay } from '../types';
import type { View } from '../view';
import { emptyState, section, swatch } from '../widgets';

type Measure = 'cost_usd' | 'calls';

export const spendView: View = {
  id: 'spend',
  label: 'Spend',
  title: 'Spend this month',
  async render(ctx) {
    const usage = await ctx.api.get<Usage>('/v1/usage?by=day');
    const sandbox = usage.by_tool.some((line) => line.provider === 'sandbox');
    ctx.root.append(
      h(
        'section',
        { class: 'panel' },
        h('h2', null, `${fmtDay(usage.from)} to ${fmtDay(usage.to)} (UTC)`),
        h(
          'dl',
          { class: 'stats' },
          h('div', null, h('dt', null, 'Provider cost'), h('dd', { attrs: { 'data-total': 'cost' } }, fmtUsd(usage.cost_usd))),
          h('div', null, h('dt', null, 'Provider calls'), h('dd', { attrs: { 'data-total': 'calls' } }, fmtInt(usage.calls))),
        ),
        sandbox
          ? h(
              'p',
              { class: 'note' },
              'sandbox: simulated, free. These calls went to the offline sandbox provider, which costs nothing; with a real provider configured, its costs show here.',
            )
          : null,
      ),
    );
    if (usage.calls === 0) {
      ctx.root.append(
        emptyState('No provider calls this month.', 'Research tools and competitor monitoring record every paid provider call here, with its cost.'),
      );
      return;
    }
    if (usage.by_day) ctx.root.append(daily(usage.by_day, usage));
    ctx.root.append(
      section(
        'By tool',
        dataTable({
          name: 'by-tool',
          caption: 'Provider calls and cost per tool and provider this month, costliest first',
          columns: [
            { label: 'Tool', cell: (l) => l.tool, sortBy: (l) => l.tool },
            { label: 'Provider', cell: (l) => (l.provider === 'sandbox' ? 'sandbox (simulated, free)' : l.provider), sortBy: (l) => l.provider },
            { label: 'Calls', cell: (l) => fmtInt(l.calls), sortBy: (l) => l.calls, numeric: true },
            { label: 'Cost', cell: (l) => fmtUsd(l.cost_usd), sortBy: (l) => l.cost_usd, numeric: true },
          ],
          rows: usage.by_tool,
        }),
      ),
    );
  },
};

/** Every UTC day from `from` to `to`, so quiet days show as gaps rather than vanish. */
function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(from.slice(0, 10)); t <= Date.parse(to); t += 86_400_000) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

function daily(byDay: UsageDay[], usage: Usage): HTMLElement {
  const days = daysOf(usage.from, usage.to);
  const tools = [...new Set(byDay.map((d) => d.tool))].sort();
  const sum = (day: string, tool: string, measure: Measure) =>
    byDay.filter((d) => d.day === day && d.tool === tool).reduce((total, d) => total + d[measure], 0);
  // Cost is what matters, but with only free (sandbox) calls there is nothing to see in it: show calls then.
  let measure: Measure = usage.cost_usd > 0 ? 'cost_usd' : 'calls';
  const holder = h('div');
  const draw = () => {
    replace(
      holder,
      chartFigure('spend', `${measure === 'calls' ? 'Provider calls' : 'Provider cost in USD'} per day and tool. The table below has the figures.`, {
        type: 'bar',
        data: {
          labels: days.map((d) => d.slice(5)),
          datasets: tools.map((tool, i) => ({
            label: tool,
            data: days.map((day) => sum(day, tool, measure)),
            backgroundColor: PALETTE[i % PALETTE.length],
          })),
        },
        options: {
          maintainAspectRatio: false,
          scales: {
            x: { stacked: true, title: { display: true, text: 'Day (UTC)' } },
            y: { stacked: true, beginAtZero: true, title: { display: true, text: measure === 'calls' ? 'Calls' : 'Cost (USD)' } },
          },
        },
      }),
    );
  };
  const choice = (value: Measure, label: string) =>
    h(
      'label',
      null,
      h('input', {
        attrs: { type: 'radio', name: 'measure', value, checked: measure === value },
        on: {
          change: () => {
            measure = value;
            destroyCharts();
            draw();
            mountCharts();
          },
        },
      }),
      ` ${label}`,
    );
  const legend = h(
    'ul',
    { class: 'legend', attrs: { 'aria-label': 'Tools' } },
    tools.map((tool, i) => h('li', { class: 'domain' }, swatch({ fill: PALETTE[i % PALETTE.length]!, border: PALETTE[i % PALETTE.length]! }), tool)),
  );
  const rows = [...byDay].sort((a, b) => b.day.localeCompare(a.day) || b.cost_usd - a.cost_usd);
  const table = dataTable<UsageDay>({
    name: 'by-day',
    caption: `Per day and tool: ${plural(rows.length, 'line')}`,
    columns: [
      { label: 'Day', cell: (d) => d.day, sortBy: (d) => d.day },
      { label: 'Tool', cell: (d) => d.tool, sortBy: (d) => d.tool },
      { label: 'Provider', cell: (d) => d.provider, sortBy: (d) => d.provider },
      { label: 'Calls', cell: (d) => fmtInt(d.calls), sortBy: (d) => d.calls, numeric: true },
      { label: 'Cost', cell: (d) => fmtUsd(d.cost_usd), sortBy: (d) => d.cost_usd, numeric: true },
    ],
    rows,
  });
  draw();
  return section(
    'Per day',
    h('fieldset', { class: 'measure' }, h('legend', null, 'Chart'), choice('cost_usd', 'Cost (USD)'), choice('calls', 'Calls')),
    legend,
    holder,
    table,
  );
}
