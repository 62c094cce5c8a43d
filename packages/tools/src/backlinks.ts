import type { SerpBacklinksInput } from '@cm/contract';
import { LIMITS } from '@cm/contract';
import { displayDomain, healthFlags, linksPerDomain, rankGap, trendWithin } from '@cm/core';
import type { BacklinkProfile } from '@cm/providers';
import { competitorDomain } from './competitors';
import { competitorDomains, DATABASE, siteOf, type ToolContext } from './context';
import { GAP_LIMIT } from './monitoring';

interface Tracked {
  profile: BacklinkProfile;
  snapshotAt: string | null;
  isSite: boolean;
  isCompetitor: boolean;
}

function profileView(t: Tracked, others: readonly BacklinkProfile[]) {
  const { profile } = t;
  return {
    domain: profile.domain,
    domain_unicode: displayDomain(profile.domain),
    is_site: t.isSite,
    is_competitor: t.isCompetitor,
    snapshot_at: t.snapshotAt,
    summary: { ...profile.summary, backlinks_per_referring_domain: linksPerDomain(profile.summary) },
    anchors: profile.anchors,
    top_linking_pages: profile.top_linking_pages,
    referring_domains: profile.referring_domains,
    health: healthFlags(profile, others),
  };
}

/** What scope names: the site and its competitors, the site alone, or one domain. */
function scopeOf(
  scope: string,
  siteDomain: string | null,
): { kind: 'all' | 'site' } | { kind: 'domain'; domain: string } {
  if (scope === 'all' || scope === 'site') return { kind: scope };
  const domain = competitorDomain(scope, 'scope');
  return domain === siteDomain ? { kind: 'site' } : { kind: 'domain', domain };
}

/**
 * serp_backlinks. Tracked domains (the site and its active competitors) answer from their latest
 * monitoring snapshots, at no cost; an untracked domain is looked up live and never tracked; links
 * are always pulled live, since they are paid per row and asked for rarely. The site's own view,
 * overview or links, is `{empty: true}` until monitoring has taken the site's first snapshot.
 */
export async function serpBacklinks(ctx: ToolContext, input: SerpBacklinksInput) {
  const [site, competitors] = await Promise.all([siteOf(ctx), competitorDomains(ctx)]);
  const scope = scopeOf(input.scope, site.domain);
  if (input.depth === 'links') {
    const domain = scope.kind === 'domain' ? scope.domain : site.domain;
    // The site's own links wait for its backlink data, as its overview does; another domain is looked up live.
    const noData = !domain || (scope.kind !== 'domain' && !(await ctx.store.backlinks.latest(ctx.siteId, domain)));
    if (noData) return { data_source: DATABASE, empty: true as const };
    const links = await ctx.backlinkData.links(domain, input.limit ?? LIMITS.linksDefault, ctx.meter);
    return {
      data_source: ctx.backlinkData.name,
      scope: input.scope,
      depth: 'links' as const,
      domain,
      domain_unicode: displayDomain(domain),
      links,
    };
  }

  const snapshots = await Promise.all(competitors.map((d) => ctx.store.backlinks.latest(ctx.siteId, d)));
  const competitorProfiles: Tracked[] = snapshots.flatMap((s) =>
    s ? [{ profile: s.profile, snapshotAt: s.taken_at, isSite: false, isCompetitor: true }] : [],
  );
  const trend = (profiles: Tracked[]) =>
    profiles.map((t) => ({
      domain: t.profile.domain,
      points: trendWithin(t.profile.trend, input.trend_months, ctx.now),
    }));
  const othersOf = (t: Tracked) => competitorProfiles.filter((c) => c !== t).map((c) => c.profile);

  if (scope.kind === 'domain') {
    const known = competitorProfiles.find((c) => c.profile.domain === scope.domain);
    const target: Tracked = known ?? {
      profile: await ctx.backlinkData.profile(scope.domain, ctx.meter),
      snapshotAt: null,
      isSite: false,
      isCompetitor: competitors.includes(scope.domain),
    };
    // Outreach against this domain: who links to it and not to the site.
    const gap = site.domain ? await ctx.backlinkData.linkGap(site.domain, [scope.domain], GAP_LIMIT, ctx.meter) : [];
    const view = profileView(target, othersOf(target));
    return {
      data_source: known ? DATABASE : ctx.backlinkData.name,
      scope: input.scope,
      depth: 'overview' as const,
      profiles: [view],
      trend: trend([target]),
      gap: rankGap(gap, [scope.domain]),
      health: view.health,
    };
  }

  const own = site.domain ? await ctx.store.backlinks.latest(ctx.siteId, site.domain) : null;
  if (!own) return { data_source: DATABASE, empty: true as const };
  const siteProfile: Tracked = { profile: own.profile, snapshotAt: own.taken_at, isSite: true, isCompetitor: false };
  const shown = scope.kind === 'all' ? [siteProfile, ...competitorProfiles] : [siteProfile];
  const [siteView, ...competitorViews] = shown.map((t) => profileView(t, othersOf(t)));
  if (!siteView) throw new Error('the site profile is always shown first');
  const views = [siteView, ...competitorViews];
  return {
    data_source: own.data_source,
    scope: input.scope,
    depth: 'overview' as const,
    profiles: views,
    trend: trend(shown),
    gap: rankGap(own.gap ?? [], competitors),
    health: siteView.health,
  };
}
