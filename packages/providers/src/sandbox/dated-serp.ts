import type { SerpContext } from '../types';
import { between, unit } from './derive';
import { sandboxRank } from './keywords';
import { leverOn, SLIP_PLACES } from './levers';
import { resultUrl, type Placement } from './serp';

/* The sandbox's rank checks: SERPs of a day, whose tracked positions move plausibly from day to day. */

/** Where a rank check's dated positions start from, before they move: the top 30, so some start out of a top 20. */
const DATED_BASE_DEPTH = 30;
/** ... and a site's page that targets the keyword, the top 12: it is the site's content for it. */
const TARGETED_BASE_DEPTH = 12;
const DAY_MS = 86_400_000;
/** A page of the site ranks for its keyword on this share of days (else the site ranks with another of its pages). */
const PAGE_DAYS = 0.7;
/** How far a domain's mobile position sits from its desktop one, at most, either way: the two SERPs mostly agree. */
const MOBILE_SPREAD = 2;

/**
 * How far a domain's position on a keyword has moved on a day: a drift that changes course each week
 * (up to 4 places either way, in steps between weekly anchors), and a place either way from day to day.
 */
function drift(seed: string, day: string): number {
  const n = Math.round(Date.parse(`${day}T00:00:00.000Z`) / DAY_MS);
  const week = Math.floor(n / 7);
  const into = (n - week * 7) / 7;
  const from = between(seed, `week-${week}`, -4, 4);
  const to = between(seed, `week-${week + 1}`, -4, 4);
  return Math.round(from + (to - from) * into) + between(seed, `day-${n}`, -1, 1);
}

/**
 * A rank check's placement on `day`: each tracked domain's position, derived from keyword and domain,
 * moved by the day's drift, and out of the results when moved past them. A published page of the site
 * that targets the keyword makes the site rank for it, high, and with that page's URL on 7 days in 10.
 * On mobile, each domain sits a few places from its desktop position, the same offset every day. A
 * `slipping` keyword's site drops SLIP_PLACES places from the lever's day (levers.ts).
 */
export function datedPlacement(
  day: string,
  siteDomain: string | null,
  pages: SerpContext['pages'] = [],
  device: SerpContext['device'] = 'desktop',
): Placement {
  const pageFor = (keyword: string) => pages.find((p) => p.keywords.includes(keyword));
  return {
    position(keyword, locale, domain, share, depth) {
      const query = `${locale}\n${keyword}`;
      const targeted = domain === siteDomain && pageFor(keyword) !== undefined;
      const base = targeted
        ? sandboxRank(query, domain, 1, TARGETED_BASE_DEPTH)
        : sandboxRank(query, domain, share, DATED_BASE_DEPTH);
      if (base === null) return null;
      const seed = `${query}\n${domain}`;
      const onDevice = device === 'mobile' ? between(seed, 'mobile', -MOBILE_SPREAD, MOBILE_SPREAD) : 0;
      const slip = domain === siteDomain && leverOn(keyword, 'slipping', day) ? SLIP_PLACES : 0;
      const position = Math.max(1, base + drift(seed, day) + onDevice) + slip;
      return position <= depth ? position : null;
    },
    url(keyword, domain) {
      const page = domain === siteDomain ? pageFor(keyword) : undefined;
      return page && unit(`${page.url}\n${keyword}`, `page-day-${day}`) < PAGE_DAYS
        ? page.url
        : resultUrl(keyword, domain);
    },
  };
}
