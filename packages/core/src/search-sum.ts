import type { SearchTotals } from '@cm/contract';
import { roundTo } from './rounding';

/** Clicks, impressions, CTR (clicks / impressions) and the impression-weighted average position (1 = first). */
export interface WindowFigures {
  clicks: number;
  impressions: number;
  /** Null without impressions. */
  ctr: number | null;
  /** Null without impressions. */
  position: number | null;
}

/**
 * A running sum of Search Console figures, the position weighed by impressions: the one sum a day's
 * rows (search-days.ts) and a window's days (search-traffic.ts) are added up with.
 */
export class SearchSum {
  clicks = 0;
  impressions = 0;
  private weighted = 0;
  private weighedImpressions = 0;

  add(clicks: number, impressions: number, position: number | null): this {
    this.clicks += clicks;
    this.impressions += impressions;
    if (position !== null && impressions > 0) {
      this.weighted += position * impressions;
      this.weighedImpressions += impressions;
    }
    return this;
  }

  /** The average position to two decimals, null without impressions. */
  private position(): number | null {
    return this.weighedImpressions > 0 ? roundTo(this.weighted / this.weighedImpressions, 2) : null;
  }

  /** As a stored day gives them: clicks, impressions, position. */
  totals(): SearchTotals {
    return { clicks: this.clicks, impressions: this.impressions, position: this.position() };
  }

  /** As a window reports them: with the CTR to four decimals. */
  figures(): WindowFigures {
    return {
      clicks: this.clicks,
      impressions: this.impressions,
      ctr: this.impressions > 0 ? roundTo(this.clicks / this.impressions, 4) : null,
      position: this.position(),
    };
  }
}
