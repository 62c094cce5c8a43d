import {
  DETAIL_REFRESH,
  detailDue,
  extendTrend,
  brandOf,
  healthFlags,
  HEALTH_THRESHOLDS,
  isBrandAnchor,
  median,
  rankGap,
  trendWithin,
  velocity,
  type HealthInput,
} from '@cm/core';
import { given } from '../helpers/client';

/* Backlink health flags (docs/api.md#backlink-health-flags), trend windows and the link gap's outreach order. */

const month = (i: number) => `2026-${String(i).padStart(2, '0')}`;

/** A profile that triggers no flag but spam_clean; each test changes one thing. */
function healthy(overrides: Partial<HealthInput['summary']> = {}, extra: Partial<HealthInput> = {}): HealthInput {
  return {
    domain: 'shoes.example.com',
    summary: {
      backlinks: 4000,
      referring_domains: 1000,
      spam_score: 5,
      broken_links: 0,
      dofollow_share: 0.8,
      ...overrides,
    },
    anchors: [
      { anchor: 'Example Shoes', share: 0.45 },
      { anchor: 'running shoes', share: 0.2 },
      { anchor: 'click here', share: 0.1 },
    ],
    trend: [9, 10, 11].map((n, i) => ({ month: month(i + 1), new_referring_domains: n })),
    ...extra,
  };
}
const withVelocity = (n: number): HealthInput =>
  healthy({}, { trend: [n, n, n].map((v, i) => ({ month: month(i + 1), new_referring_domains: v })) });

describe('health flags', () => {
  it('gives only spam_clean for a healthy profile', () => {
    expect(healthFlags(healthy(), [withVelocity(5), withVelocity(10)])).toEqual(['spam_clean']);
  });

  it('flags ratio_below_3:1 below 3 backlinks per referring domain, not at 3', () => {
    expect(healthFlags(healthy({ backlinks: 2999, referring_domains: 1000 }), [])).toContain('ratio_below_3:1');
    expect(healthFlags(healthy({ backlinks: 3000, referring_domains: 1000 }), [])).not.toContain('ratio_below_3:1');
    expect(healthFlags(healthy({ backlinks: 0, referring_domains: 0 }), [])).not.toContain('ratio_below_3:1');
  });

  it('says spam_clean below 15 and spam_elevated from 15', () => {
    expect(healthFlags(healthy({ spam_score: 14.9 }), [])).toContain('spam_clean');
    expect(healthFlags(healthy({ spam_score: 15 }), [])).toEqual(expect.arrayContaining(['spam_elevated']));
    expect(healthFlags(healthy({ spam_score: 15 }), [])).not.toContain('spam_clean');
  });

  it("flags velocity_below_competitors below the competitors' median of new referring domains (last 3 months), and not without competitors", () => {
    const own = healthy(); // (9 + 10 + 11) / 3 = 10 a month
    expect(velocity(own.trend)).toBe(10);
    expect(healthFlags(own, [withVelocity(8), withVelocity(12), withVelocity(30)])).toContain(
      'velocity_below_competitors',
    ); // median 12
    expect(healthFlags(own, [withVelocity(8), withVelocity(10), withVelocity(30)])).not.toContain(
      'velocity_below_competitors',
    ); // median 10
    expect(healthFlags(own, [])).not.toContain('velocity_below_competitors');
    // Only the last three months count.
    const older = healthy(
      {},
      { trend: [100, 100, 1, 1, 1].map((n, i) => ({ month: month(i + 1), new_referring_domains: n })) },
    );
    expect(velocity(older.trend)).toBe(1);
  });

  it('flags dofollow_below_50pct below half, broken_links_present from one broken link', () => {
    expect(healthFlags(healthy({ dofollow_share: 0.49 }), [])).toContain('dofollow_below_50pct');
    expect(healthFlags(healthy({ dofollow_share: 0.5 }), [])).not.toContain('dofollow_below_50pct');
    expect(healthFlags(healthy({ broken_links: 1 }), [])).toContain('broken_links_present');
  });

  it('flags anchor_overoptimized for one non-brand anchor over 30%, never for brand anchors', () => {
    const over = healthy({}, { anchors: [{ anchor: 'best running shoes', share: 0.31 }] });
    expect(healthFlags(over, [])).toContain('anchor_overoptimized');
    const at = healthy({}, { anchors: [{ anchor: 'best running shoes', share: HEALTH_THRESHOLDS.anchorShare }] });
    expect(healthFlags(at, [])).not.toContain('anchor_overoptimized');
    for (const anchor of ['Example', 'example.com', 'https://www.example.com/', 'shoes.example.com']) {
      expect(healthFlags(healthy({}, { anchors: [{ anchor, share: 0.9 }] }), [])).not.toContain('anchor_overoptimized');
    }
  });

  it('reads the brand of a domain before its public suffix', () => {
    expect(brandOf('example.com')).toBe('example');
    expect(brandOf('blog.example.co.uk')).toBe('example');
    expect(brandOf('shop.com.au')).toBe('shop');
    expect(isBrandAnchor('Visit EXAMPLE today', 'example.com')).toBe(true);
    expect(isBrandAnchor('click here', 'example.com')).toBe(false);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNull();
  });
});

describe('trend and gap', () => {
  it('keeps the points of the last N months, this month included', () => {
    const trend = Array.from({ length: 36 }, (_v, i) => ({
      month: new Date(Date.UTC(2023, 11 + i, 1)).toISOString().slice(0, 7),
    }));
    const now = new Date('2026-11-21T10:00:00Z');
    expect(given(trend.at(-1), 'the item').month).toBe('2026-11');
    expect(trendWithin(trend, 18, now).map((p) => p.month)).toEqual(trend.slice(-18).map((p) => p.month));
    expect(given(trendWithin(trend, 18, now)[0], 'the first month').month).toBe('2025-06');
    expect(trendWithin(trend, 36, now)).toHaveLength(36);
    expect(trendWithin(trend, 1, now).map((p) => p.month)).toEqual(['2026-11']);
  });

  it('ranks the gap by competitors linked, then rank, against the competitors tracked now', () => {
    const gap = [
      { domain: 'a.com', rank: 900, links_to: ['rival.com'] },
      { domain: 'b.com', rank: 100, links_to: ['rival.com', 'other.com'] },
      { domain: 'c.com', rank: 500, links_to: ['gone.com'] },
      { domain: 'd.com', rank: 300, links_to: ['other.com', 'gone.com'] },
    ];
    expect(rankGap(gap, ['rival.com', 'other.com'])).toEqual([
      { domain: 'b.com', rank: 100, links_to: ['rival.com', 'other.com'] },
      { domain: 'a.com', rank: 900, links_to: ['rival.com'] },
      { domain: 'd.com', rank: 300, links_to: ['other.com'] },
    ]);
  });
});

describe('the detail rule and the trend extended by daily numbers', () => {
  const basis = { backlinks: 1000, referring_domains: 200, rank: 400 };
  const takenAt = '2026-11-01T09:00:00.000Z';
  const day = (n: number) => new Date(Date.parse(takenAt) + n * 86_400_000);

  it('takes the detail when there is none, else never within a week, and after a week only when the numbers moved past the threshold', () => {
    expect(detailDue(null, basis, day(0))).toBe(true);
    const moved = { ...basis, referring_domains: 220 };
    expect(detailDue({ at: takenAt, basis }, moved, day(6.9))).toBe(false);
    expect(detailDue({ at: takenAt, basis }, moved, day(DETAIL_REFRESH.minDays))).toBe(true);
    // Just under each threshold: not due, however old.
    expect(detailDue({ at: takenAt, basis }, { backlinks: 1099, referring_domains: 181, rank: 371 }, day(30))).toBe(
      false,
    );
    expect(detailDue({ at: takenAt, basis }, { ...basis, backlinks: 900 }, day(30))).toBe(true);
    expect(detailDue({ at: takenAt, basis }, { ...basis, rank: 430 }, day(30))).toBe(true);
    // From nothing, one referring domain is a move.
    const empty = { backlinks: 0, referring_domains: 0, rank: 0 };
    expect(detailDue({ at: takenAt, basis: empty }, { ...empty, referring_domains: 1 }, day(7))).toBe(true);
  });

  it("sets the day's month from the numbers, keeps earlier months, and drops the oldest past the limit; the same day twice gives the same trend", () => {
    const point = (month: string, referring: number) => ({
      month,
      backlinks: referring * 5,
      referring_domains: referring,
      new_referring_domains: 1,
      rank: 300,
    });
    const trend = [point('2026-09', 10), point('2026-10', 12), point('2026-11', 13)];
    const numbers = { summary: { backlinks: 70, referring_domains: 14, rank: 310 }, new_referring_domains: 4 };
    const once = extendTrend(trend, '2026-11-20', numbers, 36);
    expect(once).toEqual([
      point('2026-09', 10),
      point('2026-10', 12),
      { month: '2026-11', backlinks: 70, referring_domains: 14, new_referring_domains: 4, rank: 310 },
    ]);
    expect(extendTrend(once, '2026-11-20', numbers, 36)).toEqual(once);
    const next = extendTrend(once, '2026-12-01', numbers, 3);
    expect(next.map((p) => p.month)).toEqual(['2026-10', '2026-11', '2026-12']);
  });
});
