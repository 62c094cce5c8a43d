import * as z from 'zod/mini';

/*
 * Backlink data as providers return it and monitoring stores it (spec §2.7): a domain's profile, its
 * individual links, and the link gap against competitors. The serp_backlinks reply is built from these.
 */

export const BacklinkSummary = z.object({
  backlinks: z.number(),
  referring_domains: z.number(),
  /** Domain rank, on the authority scale (LIMITS.authorityMin to authorityMax). */
  rank: z.number(),
  /** 0–100: how spammy the backlinks look. */
  spam_score: z.number(),
  /** Backlinks pointing at pages of the domain that are broken. */
  broken_links: z.number(),
  /** Share of backlinks that are dofollow, 0–1. */
  dofollow_share: z.number(),
});
export type BacklinkSummary = z.infer<typeof BacklinkSummary>;

/** One month of a domain's profile; `new_referring_domains` are those first seen that month. */
export const BacklinkTrendPoint = z.object({
  /** `yyyy-mm`. */
  month: z.string(),
  backlinks: z.number(),
  referring_domains: z.number(),
  new_referring_domains: z.number(),
  rank: z.number(),
});
export type BacklinkTrendPoint = z.infer<typeof BacklinkTrendPoint>;

export const AnchorShare = z.object({
  anchor: z.string(),
  backlinks: z.number(),
  /** Share of the domain's backlinks with this anchor, 0–1. */
  share: z.number(),
});
export type AnchorShare = z.infer<typeof AnchorShare>;

/** One backlink: the page linking, the page of the domain it points to, its anchor and the linking page's authority. */
export const LinkingPage = z.object({
  url_from: z.string(),
  url_to: z.string(),
  anchor: z.string(),
  /** Authority of the linking page (LIMITS.authorityMin to authorityMax), higher is stronger. */
  authority: z.number(),
  dofollow: z.boolean(),
  first_seen: z.nullable(z.string()),
});
export type LinkingPage = z.infer<typeof LinkingPage>;

export const ReferringDomain = z.object({
  domain: z.string(),
  /** 0–1000. */
  rank: z.number(),
  backlinks: z.number(),
});
export type ReferringDomain = z.infer<typeof ReferringDomain>;

/** What monitoring stores of a domain on a day. */
export const BacklinkProfile = z.object({
  domain: z.string(),
  summary: BacklinkSummary,
  /** Monthly points, oldest first, up to LIMITS.trendMonthsMax months back. */
  trend: z.array(BacklinkTrendPoint),
  /** Top anchors by backlinks, at most 20. */
  anchors: z.array(AnchorShare),
  /** Strongest linking pages, by authority, at most 20. */
  top_linking_pages: z.array(LinkingPage),
  /** Strongest referring domains, by rank, at most 100. */
  referring_domains: z.array(ReferringDomain),
});
export type BacklinkProfile = z.infer<typeof BacklinkProfile>;

/** A domain linking to some of the competitors and not to the site. */
export const GapDomain = z.object({
  domain: z.string(),
  /** 0–1000. */
  rank: z.number(),
  /** The competitors (of those asked about) it links to. */
  links_to: z.array(z.string()),
});
export type GapDomain = z.infer<typeof GapDomain>;

/**
 * A domain's daily numbers, from the provider's bulk endpoints (many domains to a request): the
 * summary, and the backlinks and referring domains first seen and lost since the month began.
 */
export const BacklinkNumbers = z.object({
  summary: BacklinkSummary,
  new_backlinks: z.number(),
  lost_backlinks: z.number(),
  new_referring_domains: z.number(),
  lost_referring_domains: z.number(),
});
export type BacklinkNumbers = z.infer<typeof BacklinkNumbers>;

/** The costly part of a profile, taken only when the daily numbers moved (at most weekly) or a tool asks. */
export const BacklinkDetail = z.object({
  anchors: z.array(AnchorShare),
  top_linking_pages: z.array(LinkingPage),
  referring_domains: z.array(ReferringDomain),
});
export type BacklinkDetail = z.infer<typeof BacklinkDetail>;
