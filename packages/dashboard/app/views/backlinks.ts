import { LIMITS } from '@cm/contract';
import { domainStyles } from '../colors';
import { h } from '../dom';
import { isBacklinks } from '../replies';
import { backlinksReport } from '../reports/backlinks';
import { loadCompetitors } from '../tracked';
import type { View } from '../view';
import { emptyState } from '../widgets';

/** The trend lengths offered; the default is the API's own (serp_backlinks' trend_months default). */
const MONTHS = [...new Set([1, 3, 6, 12, 24, LIMITS.trendMonthsDefault, LIMITS.trendMonthsMax])].sort((a, b) => a - b);

export const backlinksView: View = {
  id: 'backlinks',
  label: 'Backlinks',
  title: 'Backlinks',
  async render(ctx) {
    const months = MONTHS.includes(Number(ctx.params[0])) ? Number(ctx.params[0]) : LIMITS.trendMonthsDefault;
    const select = h(
      'select',
      { attrs: { id: 'months' }, on: { change: () => ctx.navigate([select.value]) } },
      MONTHS.map((m) =>
        h('option', { attrs: { value: m, selected: m === months } }, m === 1 ? '1 month' : `${m} months`),
      ),
    );
    ctx.root.append(h('div', { class: 'toolbar' }, h('label', { attrs: { for: 'months' } }, 'Trend over'), select));
    const [data, competitors] = await Promise.all([
      ctx.api.tool('serp_backlinks', { scope: 'all', depth: 'overview', trend_months: months }, isBacklinks),
      loadCompetitors(ctx.api),
    ]);
    if (!('profiles' in data)) {
      ctx.root.append(
        emptyState(
          'No backlink data yet.',
          'Monitoring runs daily and takes the site’s first snapshot then. To start it now, ',
          h('a', { attrs: { href: '#competitors' } }, 'add a competitor'),
          ': that queues a monitoring run for the site and the competitor at once.',
        ),
      );
      return;
    }
    const styles = domainStyles(competitors, data.profiles.find((p) => p.is_site)?.domain ?? null);
    ctx.root.append(...backlinksReport(data, styles, months));
  },
};
