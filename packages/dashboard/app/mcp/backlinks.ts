import { LIMITS } from '@cm/contract';
import { resultStyles } from '../colors';
import { emptyState } from '../widgets';
import { isBacklinks } from '../replies';
import { backlinksReport } from '../reports/backlinks';
import { startMcpApp } from './app';

/* The backlinks App: a serp_backlinks overview, its trend over the months asked (the API's default if none). */
startMcpApp({
  name: 'backlinks',
  tool: 'serp_backlinks',
  is: isBacklinks,
  draw: (data, input) =>
    'profiles' in data
      ? backlinksReport(
          data,
          resultStyles(data.profiles),
          typeof input.trend_months === 'number' ? Math.round(input.trend_months) : LIMITS.trendMonthsDefault,
        )
      : [
          emptyState(
            'No backlink data yet.',
            'Monitoring takes the site’s first snapshot on its daily run, or when a competitor is added.',
          ),
        ],
});
