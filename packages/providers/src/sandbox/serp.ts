import type { SerpItem } from '@cm/contract';
import type { SerpContext } from '../types';
import { shuffled } from './derive';
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
export const SITE_SHARE = 0.6;
const COMPETITOR_SHARE = 0.45;

const slugOf = (keyword: string) => keyword.replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const titleOf = (keyword: string, domain: string) =>
  `${keyword.replace(/\b\w/g, (c) => c.toUpperCase())} - ${domain.replace(/\..*/s, '').replace(/^\w/, (c) => c.toUpperCase())}`;

/** Where a tracked domain ranks in a SERP, and with what URL: derived from keyword and domain, or on a check's day. */
export interface Placement {
  /** A tracked domain's position in the top `depth` (`share`: of keywords it ranks for), null: it does not rank. */
  position(keyword: string, locale: string, domain: string, share: number, depth: number): number | null;
  url(keyword: string, domain: string): string;
}

/** A result's URL on a domain, for a keyword. */
export const resultUrl = (keyword: string, domain: string): string => `https://www.${domain}/${slugOf(keyword)}`;

/** The live SERP's placement (list, a refresh): the same wherever and whenever it is pulled. */
export const LIVE: Placement = {
  position: (keyword, locale, domain, share, depth) => sandboxRank(`${locale}\n${keyword}`, domain, share, depth),
  url: resultUrl,
};

/** The positions of the site and its competitors in a top `depth`, as `placement` places them (a later one taking the next free place). */
function trackedPositions(
  keyword: string,
  locale: string,
  depth: number,
  context: Pick<SerpContext, 'siteDomain' | 'competitors'>,
  placement: Placement,
): Map<number, string> {
  const byPosition = new Map<number, string>();
  const tracked = [
    ...(context.siteDomain ? [[context.siteDomain, SITE_SHARE] as const] : []),
    ...context.competitors.map((c) => [c, COMPETITOR_SHARE] as const),
  ];
  for (const [domain, share] of tracked) {
    let position = placement.position(keyword, locale, domain, share, depth);
    while (position !== null && byPosition.has(position)) position = position < depth ? position + 1 : null;
    if (position !== null) byPosition.set(position, domain);
  }
  return byPosition;
}

/** A result of a tracked domain the sandbox places. */
const placedItem = (keyword: string, domain: string, position: number, url: string): SerpItem => ({
  position,
  domain,
  url,
  title: titleOf(keyword, domain),
});

/**
 * A top-`depth` organic SERP derived from the keyword and locale, with the site's domain and its
 * competitors placed on some keywords, as `placement` places them; the rest filled from well-known domains.
 */
export function sandboxSerp(
  keyword: string,
  locale: string,
  depth: number,
  context: SerpContext,
  placement: Placement = LIVE,
): SerpItem[] {
  const byPosition = trackedPositions(keyword, locale, depth, context, placement);
  const placed = new Set([...(context.siteDomain ? [context.siteDomain] : []), ...context.competitors]);
  // A mobile SERP is other data: its public results come in an order of their own.
  const seed = `${locale}\n${keyword}${context.device === 'mobile' ? '\nmobile' : ''}`;
  const fill = shuffled(DOMAINS, seed).filter((d) => !placed.has(d));
  const items: SerpItem[] = [];
  let filled = 0;
  for (let position = 1; position <= depth; position++) {
    const placedHere = byPosition.get(position);
    if (placedHere !== undefined) {
      items.push(placedItem(keyword, placedHere, position, placement.url(keyword, placedHere)));
      continue;
    }
    // Past the well-known domains (a top 50 or deeper), they rank again with further pages, as deep SERPs do.
    const domain = fill[filled % fill.length] ?? 'example.com';
    const round = Math.floor(filled / fill.length);
    filled++;
    const url = round === 0 ? resultUrl(keyword, domain) : `${resultUrl(keyword, domain)}/${round + 1}`;
    items.push({ position, domain, url, title: titleOf(keyword, domain) });
  }
  return items;
}

/**
 * A public SERP (the same for every site) as a site sees it in the sandbox, which knows no real
 * rankings: the site's domain and its competitors placed where the live SERP would place them, the
 * public results moved down around them in their order (`placement`: a rank check's, of its day). A
 * tracked domain the public SERP has already keeps its place there. A real SERP needs none of this: it
 * names every domain that ranks.
 */
export function placeTracked(
  items: readonly SerpItem[],
  keyword: string,
  locale: string,
  context: Pick<SerpContext, 'siteDomain' | 'competitors'>,
  placement: Placement = LIVE,
): SerpItem[] {
  const present = new Set(items.map((item) => item.domain));
  const absent = (domain: string) => !present.has(domain);
  const byPosition = trackedPositions(
    keyword,
    locale,
    items.length,
    {
      siteDomain: context.siteDomain !== null && absent(context.siteDomain) ? context.siteDomain : null,
      competitors: context.competitors.filter(absent),
    },
    placement,
  );
  // The public results keep their order; the last ones are pushed out of the top by the placed domains.
  const view = items.slice(0, items.length - byPosition.size);
  for (const [position, domain] of [...byPosition].sort(([a], [b]) => a - b))
    view.splice(position - 1, 0, placedItem(keyword, domain, position, placement.url(keyword, domain)));
  return view.map((item, i) => ({ ...item, position: i + 1 }));
}
