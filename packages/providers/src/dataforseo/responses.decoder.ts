import * as z from 'zod/mini';

/*
 * DataForSEO's answers as this service reads them, decoded once where they arrive. DataForSEO's own
 * OpenAPI description makes nearly every field nullable, so every field read may be null or missing
 * unless nothing can be made of an item without it, and the fields not read pass through (loose objects).
 */

/** A number DataForSEO may leave null or out. */
const metric = z.nullish(z.number());

/** The cost an answer reports: recorded whatever else its body has. */
export const Billed = z.looseObject({ cost: z.number() });

/** The envelope: an outcome at its own level and one at each task's, the task's results still undecoded. */
export const Envelope = z.looseObject({
  status_code: z.number(),
  status_message: z.nullish(z.string()),
  tasks: z.nullish(
    z.array(
      z.looseObject({
        status_code: z.number(),
        status_message: z.nullish(z.string()),
        result: z.nullish(z.array(z.unknown())),
      }),
    ),
  ),
});

const items = <T extends z.ZodMiniType>(item: T) => z.looseObject({ items: z.nullish(z.array(item)) });

export const SearchVolumeItem = z.looseObject({
  keyword: z.string(),
  search_volume: metric,
  cpc: metric,
  competition_index: metric,
});

export const IntentResult = items(
  z.looseObject({
    keyword: z.string(),
    keyword_intent: z.nullish(z.looseObject({ label: z.nullish(z.string()) })),
  }),
);

export const IdeasResult = items(
  z.looseObject({
    keyword: z.string(),
    keyword_info: z.nullish(z.looseObject({ search_volume: metric, cpc: metric, competition: metric })),
    search_intent_info: z.nullish(z.looseObject({ main_intent: z.nullish(z.string()) })),
  }),
);

/** Every kind of SERP item: only organic ones are read, and they carry a place, a domain and a URL. */
export const SerpResult = items(
  z.looseObject({
    type: z.string(),
    rank_group: metric,
    domain: z.nullish(z.string()),
    url: z.nullish(z.string()),
    title: z.nullish(z.string()),
  }),
);

export const SummaryResult = z.looseObject({
  rank: metric,
  backlinks: metric,
  backlinks_spam_score: metric,
  broken_backlinks: metric,
  referring_domains: metric,
  referring_links_attributes: z.nullish(z.record(z.string(), metric)),
});
export type SummaryResult = z.infer<typeof SummaryResult>;

/** A bulk_pages_summary row: the summary's numbers of one target, named by `url` (or `target`) as sent. */
const PagesSummaryItem = z.extend(SummaryResult, {
  url: z.nullish(z.string()),
  target: z.nullish(z.string()),
});
export type PagesSummaryItem = z.infer<typeof PagesSummaryItem>;
export const PagesSummaryResult = items(PagesSummaryItem);
export const NewLostBacklinksResult = items(
  z.looseObject({ target: z.string(), new_backlinks: metric, lost_backlinks: metric }),
);
export const NewLostReferringDomainsResult = items(
  z.looseObject({ target: z.string(), new_referring_domains: metric, lost_referring_domains: metric }),
);

const TimeseriesItem = z.looseObject({
  /** `yyyy-mm-dd hh:mm:ss +00:00`, the last day of the month. */
  date: z.nullish(z.string()),
  rank: metric,
  backlinks: metric,
  referring_domains: metric,
});
export type TimeseriesItem = z.infer<typeof TimeseriesItem>;
export const TimeseriesResult = items(TimeseriesItem);

export const AnchorsResult = items(z.looseObject({ anchor: z.nullish(z.string()), backlinks: metric }));
export type AnchorsResult = z.infer<typeof AnchorsResult>;

const BacklinkItem = z.looseObject({
  url_from: z.string(),
  url_to: z.string(),
  anchor: z.nullish(z.string()),
  page_from_rank: metric,
  dofollow: z.nullish(z.boolean()),
  first_seen: z.nullish(z.string()),
});
export type BacklinkItem = z.infer<typeof BacklinkItem>;
export const BacklinksResult = items(BacklinkItem);

export const ReferringDomainsResult = items(z.looseObject({ domain: z.string(), rank: metric, backlinks: metric }));
export type ReferringDomainsResult = z.infer<typeof ReferringDomainsResult>;

/** Per target key (`"1"`, `"2"`, …): the referring domain's metrics towards that target, absent or null when it does not link to it. */
export const IntersectionResult = items(
  z.looseObject({
    domain_intersection: z.nullish(
      z.record(z.string(), z.nullish(z.looseObject({ target: z.string(), rank: metric }))),
    ),
  }),
);

/** A page an AI Overview cites: without a URL nothing of it is kept. */
const AiOverviewReference = z.looseObject({ domain: z.nullish(z.string()), url: z.nullish(z.string()) });
const References = z.nullish(z.array(AiOverviewReference));

/**
 * An advanced SERP's `ai_overview` item: its references, at its own level and in each of its elements,
 * and whether Google loaded it after the page (`asynchronous_ai_overview`).
 */
export const AiOverviewItem = z.looseObject({
  type: z.literal('ai_overview'),
  asynchronous_ai_overview: z.nullish(z.boolean()),
  references: References,
  items: z.nullish(z.array(z.looseObject({ references: References }))),
});
