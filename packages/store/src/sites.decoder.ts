import * as z from 'zod/mini';
import { decodeItem } from './decode';

/* The items of sites and keys: a site, its key-rotation state, an API key record, a sequence. */

const SiteItem = z.object({
  site_id: z.int(),
  name: z.string(),
  domain: z.string(),
  locale: z.string(),
  created_at: z.string(),
  /** The domain the site's pages are served at (docs/api.md#the-sites-own-domain), once registered. */
  served_domain: z.optional(z.string()),
  /** Set once the site tracks rankings: the daily plan queues its rank checks. */
  rank_tracking: z.optional(z.boolean()),
  /** When the site paused its competitors' monitoring: its daily runs take only its own domain until it resumes. */
  competitors_paused_at: z.optional(z.string()),
  /** The site's IndexNow key (docs/api/publishing.md#indexnow), made when it is first served at a domain of its own. */
  indexnow_key: z.optional(z.string()),
  /** The Google verification token its own domain serves (docs/api/search-console.md#verification). */
  search_console_token: z.optional(z.string()),
});
export type Site = z.infer<typeof SiteItem>;

/** A site item as key checks and rotations read it. */
const SiteKeysItem = z.looseObject({
  keys_rotated_at: z.optional(z.string()),
  old_keys_until: z.optional(z.string()),
  keys_dead_before: z.optional(z.string()),
  served_domain: z.optional(z.string()),
});

const ApiKeyItem = z.looseObject({ key_hash: z.string(), site_id: z.int(), created_at: z.string() });
const SequenceItem = z.looseObject({ value: z.int() });
const DomainItem = z.looseObject({ site_id: z.int() });
const ServedDomainItem = z.looseObject({ served_domain: z.optional(z.string()) });

type Item = Record<string, unknown>;

export const decodeSite = (item: Item): Site => decodeItem('site', SiteItem, item);
export const decodeSiteKeys = (item: Item, key: Item) => decodeItem('site', SiteKeysItem, item, key);
export const decodeApiKey = (item: Item) => decodeItem('API key', ApiKeyItem, item);
export const decodeDomain = (item: Item) => decodeItem('domain', DomainItem, item);
export const decodeServedDomain = (item: Item, key: Item) => decodeItem('site', ServedDomainItem, item, key);
export const decodeSequence = (item: Item, key: Item) => decodeItem('sequence', SequenceItem, item, key);
