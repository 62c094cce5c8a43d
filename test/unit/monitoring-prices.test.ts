import {
  backlinkDetailPrice,
  backlinkProfilePrice,
  BULK_TARGETS,
  bulkNumbersPrice,
  dataForSeoPrice,
  dataForSeoTaskItems,
  linkGapPrice,
  monitoringMonthPrice,
  monitorWorkPrice,
} from '@cm/providers';

/* What monitoring costs at DataForSEO's list prices: the bulk requests of the daily numbers, the detail, a month of a domain. */

describe('monitoring at list prices', () => {
  it('prices a bulk request at $0.02 and $0.00003 a row, its rows read from the targets sent', () => {
    expect(dataForSeoPrice('backlinks/bulk_pages_summary/live', 2)).toBe(0.02006);
    expect(dataForSeoTaskItems('backlinks/bulk_pages_summary/live', { targets: ['a.com', 'b.com', 'c.com'] })).toBe(3);
    // The three requests of a full batch: $0.023 each.
    expect(bulkNumbersPrice(BULK_TARGETS)).toBe(0.069);
  });

  it('prices a month of a domain: its share of full bulk batches daily and the detail once (typical) or weekly (at most)', () => {
    const numbers = (30 * 0.069) / 100;
    expect(monitoringMonthPrice('competitor')).toEqual({
      usd: Math.round((numbers + backlinkDetailPrice()) * 1e6) / 1e6,
      at_most_usd: Math.round((numbers + 5 * backlinkDetailPrice()) * 1e6) / 1e6,
    });
    const site = monitoringMonthPrice('site');
    expect(site.usd).toBeCloseTo(monitoringMonthPrice('competitor').usd + linkGapPrice(100), 6);
    // The goal: at most $0.10 a monitored domain a month, against about $3.15 before (five calls a day).
    expect(monitoringMonthPrice('competitor').usd).toBeLessThanOrEqual(0.1);
    expect(30 * backlinkProfilePrice()).toBeGreaterThan(3.1);
  });

  it("reserves a run's work at the most it can cost: its own batch, each trend, detail and gap", () => {
    expect(monitorWorkPrice({ numbers: 0, trends: 0, details: 0, gaps: 0 })).toBe(0);
    expect(monitorWorkPrice({ numbers: 2, trends: 1, details: 1, gaps: 1 })).toBe(
      Math.round(
        (bulkNumbersPrice(2) +
          dataForSeoPrice('backlinks/timeseries_summary/live') +
          backlinkDetailPrice() +
          linkGapPrice(100)) *
          1e6,
      ) / 1e6,
    );
  });
});
