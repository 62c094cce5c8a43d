import type { SerpItem } from '@cm/contract';
import type { SerpContext } from '../types';
import { between, shuffled, unit } from './derive';
import { sandboxRank } from './keywords';

/** Sites that rank for all sorts of keywords; the sandbox fills SERPs from them. */
const DOMAINS = [
  'wikipedia.org',
  'reddit.com',
  'youtube.com',
  'amazon.com',
  'nytimes.com',
  'forbes.com',
  'quora.com',
  'medium.com',
  'theverge.com',
  'wired.com',
  'cnet.com',
  'pcmag.com',
  'techradar.com',
  'bbc.co.uk',
  'theguardian.com',
  'businessinsider.com',
  'nerdwallet.com',
  'investopedia.com',
  'healthline.com',
  'webmd.com',
  'consumerreports.org',
  'tripadvisor.com',
  'etsy.com',
  'walmart.com',
  'target.com',
  'bestbuy.com',
  'homedepot.com',
  'hubspot.com',
  'shopify.com',
  'wikihow.com',
  'britannica.com',
  'linkedin.com',
  'github.com',
  'stackoverflow.com',
  'zapier.com',
  'rei.com',
  'runnersworld.com',
  'outsideonline.com',
  'lifehacker.com',
  'thespruce.com',
];

/** Share of keywords the site, and each competitor, rank for in the sandbox. */
const SITE_SHARE = 0.6;
const COMPETITOR_SHARE = 0.45;

const slugOf = (keyword: string) => keyword.replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const titleOf = (keyword: string, domain: string) =>
  `${keyword.replace(/\b\w/g, (c) => c.toUpperCase())} - ${domain.replace(/\..*/s, '').replace(/^\w/, (c) => c.toUpperCase())}`;

/** Where a rank check's dated positions start from, before they move: the top 30, so some start out of a top 20. */
const DATED_BASE_DEPTH = 30;
/** ... and a site's page that targets the keyword, the top 12: it is the site's content for it. */
const TARGETED_BASE_DEPTH = 12;
const DAY_MS = 86_400_000;
/** A page of the site ranks for its keyword on this share of days (else the site ranks with another of its pages). */
const PAGE_DAYS = 0.7;

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
 * A tracked domain's position: derived from keyword and domain (null: it does not rank); on a check's
 * day, moved by that day's drift, and out of the results when moved past them.
 */
function trackedPosition(
  query: string,
  domain: string,
  placed: { share: number; baseDepth: number },
  depth: number,
  day?: string,
): number | null {
  if (day === undefined) return sandboxRank(query, domain, placed.share, depth);
  const base = sandboxRank(query, domain, placed.share, placed.baseDepth);
  if (base === null) return null;
  const position = Math.max(1, base + drift(`${query}\n${domain}`, day));
  return position <= depth ? position : null;
}

/** The site's result for a keyword: on a check's day, now and then the published page that targets it. */
function siteUrl(keyword: string, domain: string, context: SerpContext): string {
  const page = context.pages?.find((p) => p.keywords.includes(keyword));
  const { day } = context;
  if (page && day !== undefined && unit(`${page.url}\n${keyword}`, `page-day-${day}`) < PAGE_DAYS) return page.url;
  return `https://www.${domain}/${slugOf(keyword)}`;
}

/**
 * A top-`depth` organic SERP derived from the keyword and locale, with the site's domain and its
 * competitors placed on some keywords at positions derived from keyword and domain; on a rank check's
 * day (`context.day`) their positions move plausibly from day to day, and the site ranks with its
 * published page for the page's keywords now and then.
 */
export function sandboxSerp(keyword: string, locale: string, depth: number, context: SerpContext): SerpItem[] {
  const byPosition = new Map<number, string>();
  // A published page that targets the keyword makes the site rank for it.
  const targeted = context.pages?.some((page) => page.keywords.includes(keyword)) === true;
  const tracked = [
    ...(context.siteDomain
      ? [
          [
            context.siteDomain,
            targeted
              ? { share: 1, baseDepth: TARGETED_BASE_DEPTH }
              : { share: SITE_SHARE, baseDepth: DATED_BASE_DEPTH },
          ] as const,
        ]
      : []),
    ...context.competitors.map((c) => [c, { share: COMPETITOR_SHARE, baseDepth: DATED_BASE_DEPTH }] as const),
  ];
  for (const [domain, placed] of tracked) {
    let position = trackedPosition(`${locale}\n${keyword}`, domain, placed, depth, context.day);
    while (position !== null && byPosition.has(position)) position = position < depth ? position + 1 : null;
    if (position !== null) byPosition.set(position, domain);
  }
  const placed = new Set(tracked.map(([d]) => d));
  const fill = shuffled(DOMAINS, `${locale}\n${keyword}`).filter((d) => !placed.has(d));
  const items: SerpItem[] = [];
  for (let position = 1; position <= depth; position++) {
    const domain = byPosition.get(position) ?? fill.shift();
    if (domain === undefined) throw new Error(`the sandbox has fewer domains than ${depth} positions`);
    const url =
      domain === context.siteDomain ? siteUrl(keyword, domain, context) : `https://www.${domain}/${slugOf(keyword)}`;
    items.push({ position, domain, url, title: titleOf(keyword, domain) });
  }
  return items;
}
