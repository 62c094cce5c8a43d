import type { SerpBacklinksInput } from '@cm/contract';
import { LIMITS } from '@cm/contract';
import { Bug, displayDomain, healthFlags, linksPerDomain, rankGap, trendWithin } from '@cm/core';
import { competitorDomain } from './competitors';
import { competitorDomains, DATABASE, siteOf, type ToolContext } from './context';
import { GAP_LIMIT } from './monitoring';
import { callsOf, freeOf, withPlan, type ToolPlan } from './plan';
import type { BacklinkSnapshot } from '@cm/store';
import { backlinkLinksPrice, backlinkProfilePrice, linkGapPrice, type BacklinkProfile } from '@cm/providers';

interface Tracked {
  profile: BacklinkProfile;
  /** When monitoring took the summary (the day's numbers, which also set the trend's month) and the detail; null for a live lookup. */
  snapshotAt: string | null;
  detailAt: string | null;
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
    detail_at: t.detailAt,
    summary: { ...profile.summary, backlinks_per_referring_domain: linksPerDomain(profile.summary) },
    anchors: profile.anchors,
    top_linking_pages: profile.top_linking_pages,
    referring_domains: profile.referring_domains,
    health: healthFlags(profile, others),
  };
}

/** A monitoring snapshot's profile and how old each part is (a snapshot from before bulk monitoring: all its own age). */
const trackedOf = (s: BacklinkSnapshot) => ({
  profile: s.profile,
  snapshotAt: s.taken_at,
  detailAt: s.detail_at ?? s.taken_at,
});

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
 * What a serp_backlinks call answers from, decided before any provider call: its run and its estimate
 * both start here. Tracked domains (the site and its active competitors) answer from their latest
 * monitoring snapshot, whatever its age (monitoring takes one daily), at no cost; an untracked domain
 * is looked up live; links are always pulled live.
 */
async function decideBacklinks(ctx: ToolContext, input: SerpBacklinksInput) {
  const [site, competitors] = await Promise.all([siteOf(ctx), competitorDomains(ctx)]);
  const scope = scopeOf(input.scope, site.domain);
  if (input.depth === 'links') {
    const domain = scope.kind === 'domain' ? scope.domain : site.domain;
    // The site's own links wait for its backlink data, as its overview does; another domain is looked up live.
    const noData = !domain || (scope.kind !== 'domain' && !(await ctx.store.backlinks.latest(ctx.siteId, domain)));
    return noData
      ? { kind: 'empty' as const }
      : { kind: 'links' as const, domain, limit: input.limit ?? LIMITS.linksDefault };
  }
  const snapshots = await Promise.all(competitors.map((d) => ctx.store.backlinks.latest(ctx.siteId, d)));
  const competitorProfiles: Tracked[] = snapshots.flatMap((s) =>
    s ? [{ ...trackedOf(s), isSite: false, isCompetitor: true }] : [],
  );
  if (scope.kind === 'domain') {
    const known = competitorProfiles.find((c) => c.profile.domain === scope.domain);
    return { kind: 'domain' as const, site, competitors, competitorProfiles, domain: scope.domain, known };
  }
  const own = site.domain ? await ctx.store.backlinks.latest(ctx.siteId, site.domain) : null;
  if (!own) return { kind: 'empty' as const };
  return { kind: 'tracked' as const, site, competitors, competitorProfiles, own, scope: scope.kind };
}

/** serp_backlinks with estimate: true: the live calls its plan makes; snapshots answer the rest. */
async function planSerpBacklinks(ctx: ToolContext, input: SerpBacklinksInput): Promise<ToolPlan> {
  const plan = await decideBacklinks(ctx, input);
  const provider = ctx.backlinkData.name;
  const snapshotReason = 'monitoring snapshot (taken daily): answered from storage';
  const snapshotItems = (tracked: readonly Tracked[]) =>
    tracked.map((t) => `${t.profile.domain} (${t.snapshotAt ?? 'live'})`);
  switch (plan.kind) {
    case 'empty':
      return {
        data_source: DATABASE,
        calls: [],
        free: [],
        notes: ['no backlink data for the site yet: answers { empty: true }'],
      };
    case 'links':
      return {
        data_source: provider,
        calls: callsOf(provider, 'backlinks_links', 1, backlinkLinksPrice(plan.limit)),
        free: [],
        notes: [`up to ${plan.limit} links of ${plan.domain}, pulled live`],
      };
    case 'domain':
      return {
        data_source: plan.known ? DATABASE : provider,
        calls: [
          ...(plan.known ? [] : callsOf(provider, 'backlinks_profile', 1, backlinkProfilePrice())),
          ...(plan.site.domain ? callsOf(provider, 'backlinks_link_gap', 1, linkGapPrice(GAP_LIMIT)) : []),
        ],
        free: plan.known ? freeOf('backlinks_profile', snapshotItems([plan.known]), snapshotReason) : [],
        notes: [],
      };
    case 'tracked':
      return {
        data_source: plan.own.data_source,
        calls: [],
        free: freeOf(
          'backlinks_profile',
          [
            `${plan.own.domain} (${plan.own.taken_at})`,
            ...(plan.scope === 'all' ? snapshotItems(plan.competitorProfiles) : []),
          ],
          snapshotReason,
        ),
        notes: [],
      };
  }
}

/**
 * serp_backlinks. Tracked domains (the site and its active competitors) answer from their latest
 * monitoring snapshots, at no cost; an untracked domain is looked up live and never tracked; links
 * are always pulled live, since they are paid per row and asked for rarely. The site's own view,
 * overview or links, is `{empty: true}` until monitoring has taken the site's first snapshot.
 */
async function serpBacklinksRun(ctx: ToolContext, input: SerpBacklinksInput) {
  const plan = await decideBacklinks(ctx, input);
  if (plan.kind === 'empty') return { data_source: DATABASE, empty: true as const };
  if (plan.kind === 'links') {
    const { domain } = plan;
    const links = await ctx.backlinkData.links(domain, plan.limit, ctx.meter);
    return {
      data_source: ctx.backlinkData.name,
      scope: input.scope,
      depth: 'links' as const,
      domain,
      domain_unicode: displayDomain(domain),
      links,
    };
  }

  const { site, competitors, competitorProfiles } = plan;
  const trend = (profiles: Tracked[]) =>
    profiles.map((t) => ({
      domain: t.profile.domain,
      points: trendWithin(t.profile.trend, input.trend_months ?? LIMITS.trendMonthsDefault, ctx.now),
    }));
  const othersOf = (t: Tracked) => competitorProfiles.filter((c) => c !== t).map((c) => c.profile);

  if (plan.kind === 'domain') {
    const { known, domain } = plan;
    const target: Tracked = known ?? {
      profile: await ctx.backlinkData.profile(domain, ctx.meter),
      snapshotAt: null,
      detailAt: null,
      isSite: false,
      isCompetitor: competitors.includes(domain),
    };
    // Outreach against this domain: who links to it and not to the site.
    const gap = site.domain ? await ctx.backlinkData.linkGap(site.domain, [domain], GAP_LIMIT, ctx.meter) : [];
    const view = profileView(target, othersOf(target));
    return {
      data_source: known ? DATABASE : ctx.backlinkData.name,
      scope: input.scope,
      depth: 'overview' as const,
      profiles: [view],
      trend: trend([target]),
      gap: rankGap(gap, [domain]),
      gap_at: null,
      health: view.health,
    };
  }

  const { own } = plan;
  const siteProfile: Tracked = { ...trackedOf(own), isSite: true, isCompetitor: false };
  const shown = plan.scope === 'all' ? [siteProfile, ...competitorProfiles] : [siteProfile];
  const [siteView, ...competitorViews] = shown.map((t) => profileView(t, othersOf(t)));
  if (!siteView) throw new Bug('the site profile is always shown first');
  const views = [siteView, ...competitorViews];
  return {
    data_source: own.data_source,
    scope: input.scope,
    depth: 'overview' as const,
    profiles: views,
    trend: trend(shown),
    gap: rankGap(own.gap ?? [], competitors),
    gap_at: siteProfile.detailAt,
    health: siteView.health,
  };
}
export const serpBacklinks = /* @__PURE__ */ withPlan(serpBacklinksRun, planSerpBacklinks);
