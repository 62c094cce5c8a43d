import type { UsageQuery } from '@cm/contract';
import { monthStart } from '@cm/core';
import type { Store } from '@cm/store';

/** A site's usage sums over the query's period: from the start of the UTC month to now unless it names one. */
export async function usageReport(store: Store, siteId: number, query: UsageQuery, now: Date) {
  const from = query.from ?? monthStart(now, 0).toISOString();
  return store.usage.report(siteId, from, query.to ?? now.toISOString(), { byDay: query.by === 'day' });
}
