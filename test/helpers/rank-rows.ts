import type { RankRow } from '@cm/contract';

/**
 * A rank check's row as the history reads it: `keyword` checked on `day` (US/en, desktop, by the sandbox,
 * at 06:00 UTC, the top 20 unless `found` says), with what the check found.
 */
export const checkedRankRow = (
  keyword: string,
  day: string,
  found: Pick<RankRow, 'domains' | 'site_results'> & Partial<Pick<RankRow, 'depth' | 'ai_overview'>>,
): RankRow => ({
  keyword,
  locale: 'US/en',
  device: 'desktop',
  day,
  checked_at: `${day}T06:00:00.000Z`,
  data_source: 'sandbox',
  depth: 20,
  ...found,
});
