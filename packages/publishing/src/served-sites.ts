import { siteIconUrl, siteRoot, type PageSite } from '@cm/core';
import type { Site, Store } from '@cm/store';

/*
 * Which site a reader's request is for, and where its pages are. A request names its site by id
 * (`/sites/{id}/…` on the deployment's address) or by host (the site's own domain, which the edge
 * passes on as `/domains/{host}/…`); a host that no site serves is no site, never another site's.
 */

export type SiteRef = { siteId: number } | { host: string };

/** A site readers can reach, the root URL every URL of its pages starts with (siteRoot), and the site as its pages show it. */
export interface ServedSite {
  site: Site;
  root: string;
  shown: PageSite;
}

/**
 * What this container read of sites and domains, kept SITE_CACHE_MS: a site's name heads each of its
 * pages, so a warm visitor page then costs the page's one read. A renamed site, or a domain registered
 * or let go, shows within SITE_CACHE_MS, as a cached page would (max-age). At most SITE_CACHE_MAX
 * entries each; the oldest goes first.
 */
const SITE_CACHE_MS = 60_000;
const SITE_CACHE_MAX = 1_000;

class Kept<K, V> {
  private readonly entries = new Map<K, { value: V; readAt: number }>();

  async get(key: K, read: () => Promise<V>): Promise<V> {
    const kept = this.entries.get(key);
    const now = Date.now();
    if (kept && now - kept.readAt < SITE_CACHE_MS && now >= kept.readAt) return kept.value;
    const value = await read();
    this.entries.delete(key);
    this.entries.set(key, { value, readAt: now });
    if (this.entries.size > SITE_CACHE_MAX) this.entries.delete(this.entries.keys().next().value ?? key);
    return value;
  }
}

const sitesById = new Kept<number, Site | null>();
const sitesByHost = new Kept<string, Site | null>();

/** The site a reader's request names, or null (no such site, or a host no site serves). */
export async function servedSite(
  sites: Store['sites'],
  pagesBaseUrl: string,
  ref: SiteRef,
): Promise<ServedSite | null> {
  const site =
    'siteId' in ref
      ? await sitesById.get(ref.siteId, () => sites.get(ref.siteId))
      : await sitesByHost.get(ref.host, () => sites.siteOfDomain(ref.host));
  if (!site) return null;
  const root = siteRoot(pagesBaseUrl, site);
  return {
    site,
    root,
    shown: {
      name: site.name,
      root,
      locale: site.locale,
      icon: siteIconUrl(pagesBaseUrl, site),
      ...(site.search_console_token ? { verification: site.search_console_token } : {}),
    },
  };
}
