import type {
  AnchorShare,
  BacklinkDataProvider,
  BacklinkDetail,
  BacklinkNumbers,
  BacklinkProfile,
  BacklinkSummary,
  BacklinkTrendPoint,
  GapDomain,
  LinkingPage,
  ReferringDomain,
} from '../types';
import type { Meter } from '../meter';
import { LIMITS } from '@cm/contract';
import { brandOf, Bug, monthOf, monthStart } from '@cm/core';
import {
  backlinkDetailPrice,
  backlinkProfilePrice,
  backlinkTrendPrice,
  BULK_TARGETS,
  bulkNumbersPrice,
  dataForSeoPrice,
  linkGapPrice,
} from '../prices';
import { charge, SANDBOX } from './charge';
import { between, shuffled, unit } from './derive';

/* Offline backlinks: every domain links from a fixed pool of plausible domains, so profiles, links and the gap agree. */

const WELL_KNOWN = [
  'wikipedia.org',
  'medium.com',
  'reddit.com',
  'youtube.com',
  'github.com',
  'stackoverflow.com',
  'quora.com',
  'nytimes.com',
  'forbes.com',
  'theguardian.com',
  'bbc.co.uk',
  'cnn.com',
  'wired.com',
  'techcrunch.com',
  'theverge.com',
  'businessinsider.com',
  'huffpost.com',
  'wordpress.com',
  'blogspot.com',
  'tumblr.com',
  'linkedin.com',
  'pinterest.com',
  'producthunt.com',
  'news.ycombinator.com',
  'substack.com',
  'dev.to',
  'hubspot.com',
  'moz.com',
  'ahrefs.com',
  'searchenginejournal.com',
  'trustpilot.com',
  'yelp.com',
  'tripadvisor.com',
  'indiehackers.com',
  'wikihow.com',
  'britannica.com',
  'archive.org',
  'about.me',
  'slideshare.net',
  'issuu.com',
];
const WORDS = [
  'garden',
  'travel',
  'fitness',
  'recipe',
  'tech',
  'money',
  'parenting',
  'outdoor',
  'photo',
  'music',
  'design',
  'startup',
  'health',
  'pet',
  'home',
  'style',
  'auto',
  'crypto',
  'gaming',
  'craft',
  'coffee',
  'bike',
  'run',
  'book',
  'film',
  'code',
];
const PATTERNS: ReadonlyArray<(word: string) => string> = [
  (w) => `blog-${w}.com`,
  (w) => `${w}news.net`,
  (w) => `the${w}hub.com`,
  (w) => `${w}-review.org`,
  (w) => `${w}daily.com`,
  (w) => `${w}insider.io`,
  (w) => `my${w}tips.com`,
  (w) => `${w}forum.net`,
  (w) => `${w}-weekly.co.uk`,
  (w) => `best${w}guide.com`,
];

/** The 300 domains any sandbox backlink comes from, each with one rank: well-known sites strong, niche blogs mostly weak. */
const POOL: ReadonlyMap<string, number> = new Map([
  ...WELL_KNOWN.map((d) => [d, between(d, 'pool-rank', 620, 960)] as const),
  ...WORDS.flatMap((w) => PATTERNS.map((p) => p(w))).map(
    (d) => [d, Math.round(40 + unit(d, 'pool-rank') ** 1.6 * 560)] as const,
  ),
]);
const POOL_DOMAINS = [...POOL.keys()];

/** The rank of a pool domain: every sandbox link comes from the pool. */
function poolRank(domain: string): number {
  const rank = POOL.get(domain);
  if (rank === undefined) throw new Bug(`${domain} is not in the sandbox's pool of linking domains`);
  return rank;
}

const GENERIC_ANCHORS = [
  'click here',
  'here',
  'this website',
  'read more',
  'learn more',
  'source',
  'website',
  'link',
  'this article',
  'view site',
];
const TOPICAL_ANCHORS = [
  'best running shoes',
  'budget travel tips',
  'home workout plan',
  'easy dinner recipes',
  'project management software',
  'beginner photography guide',
  'small business marketing',
  'indoor plant care',
  'personal finance tips',
  'coffee brewing guide',
  'remote work tools',
  'electric bike reviews',
  'seo checklist',
  'email marketing templates',
  'kids craft ideas',
  'camping gear list',
];
const SECTIONS = [
  'blog',
  'articles',
  'news',
  'resources',
  'guides',
  'reviews',
  'wiki',
  'posts',
  'community',
  'stories',
];
const TARGET_PATHS = ['', 'blog', 'pricing', 'about', 'features', 'guides/getting-started', 'products', 'contact'];

const REFERRING_MIN = 30;
const REFERRING_MAX = 200;
const LISTED_REFERRING_DOMAINS = 100;
const TOP_PAGES = 20;
const MAX_ANCHORS = 20;
/** The trend covers the most months serp_backlinks may ask for. */
const TREND_MONTHS = LIMITS.trendMonthsMax;
/** First-seen dates of links fall in this window (days from 2019-02-01). */
const FIRST_SEEN_FROM = Date.UTC(2019, 1, 1);
const FIRST_SEEN_DAYS = 2700;

const round2 = (n: number) => Math.round(n * 100) / 100;
const round4 = (n: number) => Math.round(n * 10_000) / 10_000;
/** Ranks and authorities on the spec's authority scale. */
const clampRank = (n: number) => Math.min(LIMITS.authorityMax, Math.max(LIMITS.authorityMin, Math.round(n)));
const byRank = (a: { rank: number; domain: string }, b: { rank: number; domain: string }) =>
  b.rank - a.rank || a.domain.localeCompare(b.domain);

/** Every domain linking to `domain` (30–200 of the pool, never itself): the full set the link gap works on. */
export const sandboxReferringDomains = (domain: string): string[] =>
  shuffled(
    POOL_DOMAINS.filter((d) => d !== domain),
    `referring\n${domain}`,
  ).slice(0, between(domain, 'referring-count', REFERRING_MIN, REFERRING_MAX));

interface Derived {
  summary: BacklinkSummary;
  /** Every referring domain with the backlinks it gives; these sum to `summary.backlinks`. */
  referring: ReferringDomain[];
  anchors: AnchorShare[];
}

/** Splits `total` backlinks over the referring domains: at least one each, the rest skewed to a few generous linkers. */
function allocate(
  domain: string,
  referring: readonly string[],
  total: number,
): Array<{ domain: string; backlinks: number }> {
  const weighted = referring.map((d) => ({ domain: d, weight: 0.05 + unit(`${domain}\n${d}`, 'link-weight') ** 3 }));
  const sum = weighted.reduce((a, w) => a + w.weight, 0);
  const extra = total - referring.length;
  const shares = weighted.map((w, i) => {
    const exact = (extra * w.weight) / sum;
    return { domain: w.domain, backlinks: 1 + Math.floor(exact), remainder: exact - Math.floor(exact), i };
  });
  // Largest remainders take the leftover, one each, so the counts add up to the summary exactly.
  const left = total - shares.reduce((a, s) => a + s.backlinks, 0);
  const order = [...shares].sort((a, b) => b.remainder - a.remainder || a.i - b.i);
  const topped = new Set(order.slice(0, Math.max(0, left)));
  return shares.map((s) => ({ domain: s.domain, backlinks: topped.has(s) ? s.backlinks + 1 : s.backlinks }));
}

/**
 * Anchors: brand anchors (the brand, the domain, its URL) and non-brand ones (generic words, topical
 * phrases). About 3 domains in 10 are over-optimized, a topical phrase taking 32–50% of the backlinks.
 */
function anchorsOf(domain: string, backlinks: number): AnchorShare[] {
  const brand = brandOf(domain);
  const overOptimized = unit(domain, 'anchor-profile') < 0.3;
  const topical = shuffled(TOPICAL_ANCHORS, `topical\n${domain}`).slice(0, 6);
  const generic = shuffled(GENERIC_ANCHORS, `generic\n${domain}`).slice(0, 5);
  const brandShare = overOptimized
    ? 0.1 + unit(domain, 'brand-share') * 0.15
    : 0.15 + unit(domain, 'brand-share') * 0.3;
  const [leadTopical] = topical;
  if (leadTopical === undefined) throw new Bug('the sandbox has topical anchors');
  const brandAnchor: [string, number] = [brand, brandShare];
  const top: [string, number] = overOptimized ? [leadTopical, 0.32 + unit(domain, 'top-share') * 0.18] : brandAnchor;
  const rest: Array<[string, number]> = [
    ...(overOptimized ? [brandAnchor] : []),
    [domain, brandShare * 0.5],
    [`https://${domain}`, brandShare * 0.3],
    [`www.${domain}`, brandShare * 0.15],
    ...generic.map((a): [string, number] => [a, 0.02 + unit(`${domain}\n${a}`, 'anchor-share') * 0.06]),
    ...topical.slice(1).map((a): [string, number] => [a, 0.01 + unit(`${domain}\n${a}`, 'anchor-share') * 0.05]),
  ];
  // The listed anchors cover at most 90% of the backlinks (the long tail is unlisted), the top one unscaled.
  const restSum = rest.reduce((s, [, w]) => s + w, 0);
  const scale = Math.min(1, (0.9 - top[1]) / restSum);
  return [top, ...rest.map(([a, w]): [string, number] => [a, w * scale])]
    .map(([anchor, share]) => ({ anchor, backlinks: Math.round(share * backlinks) }))
    .filter((a) => a.backlinks > 0)
    .map((a) => ({ ...a, share: round4(a.backlinks / backlinks) }))
    .sort((a, b) => b.backlinks - a.backlinks || a.anchor.localeCompare(b.anchor))
    .slice(0, MAX_ANCHORS);
}

/**
 * The summary, referring domains and anchors of a domain. Ranges reach every health flag across
 * domains: backlinks per referring domain 1.2–15 (a third under 3), spam 0–60 (two in five under 15),
 * dofollow share 0.3–0.9, no broken links for three domains in ten.
 */
function derive(domain: string): Derived {
  const set = sandboxReferringDomains(domain);
  const ratio = 1.2 * 12.5 ** unit(domain, 'links-per-domain');
  const backlinks = Math.max(set.length, Math.round(set.length * ratio));
  const referring = allocate(domain, set, backlinks)
    .map((r) => ({ domain: r.domain, rank: poolRank(r.domain), backlinks: r.backlinks }))
    .sort(byRank);
  const strongest = referring.slice(0, 10);
  const meanTop = strongest.reduce((s, r) => s + r.rank, 0) / strongest.length;
  return {
    summary: {
      backlinks,
      referring_domains: set.length,
      rank: clampRank(meanTop * 0.45 + set.length * 1.2 + unit(domain, 'rank') * 120),
      spam_score: Math.round(60 * unit(domain, 'spam') ** 1.5),
      broken_links:
        unit(domain, 'broken') < 0.3
          ? 0
          : between(domain, 'broken-count', 1, Math.max(1, Math.round(backlinks * 0.04))),
      dofollow_share: round2(0.3 + 0.6 * unit(domain, 'dofollow')),
    },
    referring,
    anchors: anchorsOf(domain, backlinks),
  };
}

/**
 * TREND_MONTHS months ending this month, oldest first, moving from a start between 35% and 160% of today's
 * referring domains to exactly today's summary. New referring domains are the growth plus a small
 * churn of lost ones, so they are never negative and reconcile with the month-over-month change.
 */
function trendOf(domain: string, summary: BacklinkSummary, now: Date): BacklinkTrendPoint[] {
  const final = summary.referring_domains;
  const start = final * (0.35 + 1.25 * unit(domain, 'trend-start'));
  const curve = 0.7 + unit(domain, 'trend-curve') * 0.8;
  const ratio = summary.backlinks / final;
  const points: BacklinkTrendPoint[] = [];
  let previous = 0;
  for (let i = 0; i < TREND_MONTHS; i++) {
    const t = i / (TREND_MONTHS - 1);
    const last = i === TREND_MONTHS - 1;
    const noise = 1 + (unit(`${domain}\n${i}`, 'trend-noise') - 0.5) * 0.04;
    const referring = last ? final : Math.max(1, Math.round((start + (final - start) * t ** curve) * noise));
    const before = i === 0 ? referring : previous;
    const lost = Math.max(Math.floor(before * unit(`${domain}\n${i}`, 'trend-churn') * 0.04), before - referring);
    points.push({
      month: monthOf(monthStart(now, TREND_MONTHS - 1 - i)),
      backlinks: last ? summary.backlinks : Math.round(referring * ratio * (0.85 + 0.15 * t)),
      referring_domains: referring,
      new_referring_domains: referring - before + lost,
      rank: last ? summary.rank : clampRank(summary.rank * (0.8 + 0.2 * t) * noise),
    });
    previous = referring;
  }
  return points;
}

/** A 48-bit draw split into independent digits, so one hash serves a whole linking page. */
const digits = (value: number) => {
  const x = Math.floor(value * 2 ** 48);
  return {
    a: (x % 1000) / 1000,
    b: (Math.floor(x / 1e3) % 1000) / 1000,
    c: (Math.floor(x / 1e6) % 100_000) / 100_000,
    d: Math.floor(x / 1e11),
  };
};

/** Every backlink of the domain as a linking page (one per backlink), strongest first. */
function pagesOf(domain: string, derived: Derived): LinkingPage[] {
  const { referring, anchors, summary } = derived;
  const listed = anchors.reduce((s, a) => s + a.backlinks, 0);
  const pickAnchor = (draw: number) => {
    let at = draw * listed;
    for (const a of anchors) if ((at -= a.backlinks) < 0) return a.anchor;
    return anchors.at(-1)?.anchor ?? domain;
  };
  const pages: LinkingPage[] = [];
  for (const from of referring) {
    for (let j = 0; j < from.backlinks; j++) {
      const { a, b, c, d } = digits(unit(`${domain}\n${from.domain}\n${j}`, 'page'));
      pages.push({
        url_from: `https://${from.domain}/${SECTIONS[d % SECTIONS.length]}/${WORDS[(d >> 4) % WORDS.length]}-${j + 1}`,
        url_to: `https://${domain}/${TARGET_PATHS[(d >> 8) % TARGET_PATHS.length]}`,
        anchor: pickAnchor(c),
        // A page is weaker than its site, and a site's deeper pages weaker still.
        authority: clampRank(from.rank * (0.55 + 0.45 * a) * 0.985 ** j),
        dofollow: b < summary.dofollow_share,
        first_seen: new Date(FIRST_SEEN_FROM + (d % FIRST_SEEN_DAYS) * 86_400_000).toISOString().slice(0, 10),
      });
    }
  }
  return pages.sort((x, y) => y.authority - x.authority || x.url_from.localeCompare(y.url_from));
}

export function sandboxBacklinkProfile(domain: string, now: Date): BacklinkProfile {
  const derived = derive(domain);
  return {
    domain,
    summary: derived.summary,
    trend: trendOf(domain, derived.summary, now),
    anchors: derived.anchors,
    top_linking_pages: pagesOf(domain, derived).slice(0, TOP_PAGES),
    referring_domains: derived.referring.slice(0, LISTED_REFERRING_DOMAINS),
  };
}

/**
 * A domain's daily numbers: its summary, and new and lost backlinks and referring domains of the month
 * so far (a few percent of its totals, drawn per month, so they are the same all day and every day of it).
 */
export function sandboxBacklinkNumbers(domain: string, now: Date): BacklinkNumbers {
  const { summary } = derive(domain);
  const month = monthOf(now);
  const share = (total: number, what: string) =>
    between(`${domain}\n${month}`, what, 0, Math.max(1, Math.round(total * 0.04)));
  return {
    summary,
    new_backlinks: share(summary.backlinks, 'new-backlinks'),
    lost_backlinks: share(summary.backlinks, 'lost-backlinks'),
    new_referring_domains: share(summary.referring_domains, 'new-referring'),
    lost_referring_domains: share(summary.referring_domains, 'lost-referring'),
  };
}

const detailOf = (profile: BacklinkProfile): BacklinkDetail => ({
  anchors: profile.anchors,
  top_linking_pages: profile.top_linking_pages,
  referring_domains: profile.referring_domains,
});

export const sandboxLinks = (domain: string, limit: number): LinkingPage[] =>
  pagesOf(domain, derive(domain)).slice(0, limit);

/** Pool domains linking to some competitors and not to the site, most competitors first, then strongest. */
export function sandboxLinkGap(site: string, competitors: readonly string[], limit: number): GapDomain[] {
  const own = new Set(sandboxReferringDomains(site));
  const linksTo = new Map<string, string[]>();
  for (const competitor of competitors) {
    for (const d of sandboxReferringDomains(competitor)) {
      if (own.has(d) || d === site) continue;
      linksTo.set(d, [...(linksTo.get(d) ?? []), competitor]);
    }
  }
  return [...linksTo]
    .map(([domain, links]) => ({ domain, rank: poolRank(domain), links_to: links }))
    .sort((a, b) => b.links_to.length - a.links_to.length || byRank(a, b))
    .slice(0, limit);
}

/** Offline backlink data, derived from the domains; calls are free (or at list prices, simulated) and recorded. */
export class SandboxBacklinkData implements BacklinkDataProvider {
  readonly name = SANDBOX;
  readonly numbersEndpoints = ['backlinks_numbers'];
  constructor(private readonly now: () => Date = () => new Date()) {}

  profile(domain: string, meter: Meter): Promise<BacklinkProfile> {
    return charge(
      meter,
      'backlinks_profile',
      backlinkProfilePrice(),
      () => sandboxBacklinkProfile(domain, this.now()),
      backlinkProfilePrice,
    );
  }

  /** One call for all the domains, billed as the three bulk requests of that many rows would be. */
  numbers(domains: readonly string[], meter: Meter): Promise<Map<string, BacklinkNumbers>> {
    if (domains.length > BULK_TARGETS) throw new Bug(`at most ${BULK_TARGETS} domains a bulk request`);
    const now = this.now();
    return charge(
      meter,
      'backlinks_numbers',
      bulkNumbersPrice(domains.length),
      () => new Map(domains.map((domain) => [domain, sandboxBacklinkNumbers(domain, now)])),
      (answer) => bulkNumbersPrice(answer.size),
    );
  }

  trend(domain: string, meter: Meter): Promise<BacklinkTrendPoint[]> {
    const now = this.now();
    return charge(
      meter,
      'backlinks_trend',
      backlinkTrendPrice(),
      () => trendOf(domain, derive(domain).summary, now),
      backlinkTrendPrice,
    );
  }

  /** The detail as the profile has it (`backlinks` is the summary's, which the sandbox derives itself). */
  detail(domain: string, _backlinks: number, meter: Meter): Promise<BacklinkDetail> {
    return charge(
      meter,
      'backlinks_detail',
      backlinkDetailPrice(),
      () => detailOf(sandboxBacklinkProfile(domain, this.now())),
      backlinkDetailPrice,
    );
  }

  links(domain: string, limit: number, meter: Meter): Promise<LinkingPage[]> {
    const price = (rows: number) => dataForSeoPrice('backlinks/backlinks/live', rows);
    return charge(
      meter,
      'backlinks_links',
      price(limit),
      () => sandboxLinks(domain, limit),
      (links) => price(links.length),
    );
  }

  linkGap(site: string, competitors: readonly string[], limit: number, meter: Meter): Promise<GapDomain[]> {
    const price = linkGapPrice;
    return charge(
      meter,
      'backlinks_link_gap',
      price(limit),
      () => sandboxLinkGap(site, competitors, limit),
      (gap) => price(gap.length),
    );
  }
}
