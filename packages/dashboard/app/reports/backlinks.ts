import type { DomainStyles } from '../colors';
import { h } from '../dom';
import { fmtInt, fmtNum, fmtShare, fmtTime } from '../format';
import { dataTable, type Column } from '../table';
import type { BacklinkProfile, BacklinksOverview, HealthFlag } from '../types';
import { domainLabel, emptyState, section } from '../widgets';
import { domainLines } from './over-time';

/*
 * A serp_backlinks overview drawn: the referring-domain trend per domain, the profiles, their health and
 * the link gap. The dashboard's view and the backlinks MCP App both draw with this.
 */

/** Gap rows shown before "Show all": the best outreach targets come first. */
const GAP_SHOWN = 25;

/** The whole report of an overview, its trend over `months`. */
export function backlinksReport(data: BacklinksOverview, styles: DomainStyles, months: number): HTMLElement[] {
  return [trend(data, styles, months), profiles(data, styles), health(data, styles), gap(data, styles)];
}

/** Each flag in one line (thresholds in docs/api.md#backlink-health-flags); `good` flags are reassurance, the rest warnings. */
const HEALTH_FLAGS: Record<HealthFlag, { label: string; explanation: string; tone: 'good' | 'warn' | 'bad' }> = {
  'ratio_below_3:1': {
    label: 'ratio below 3:1',
    explanation: 'Fewer than 3 backlinks per referring domain: links come from many domains but thinly.',
    tone: 'warn',
  },
  spam_clean: { label: 'spam clean', explanation: 'Spam score below 15: the backlinks look clean.', tone: 'good' },
  spam_elevated: {
    label: 'spam elevated',
    explanation: 'Spam score 15 or more: review and disavow spammy linking domains.',
    tone: 'bad',
  },
  velocity_below_competitors: {
    label: 'velocity below competitors',
    explanation: 'New referring domains of the last 3 months are below the competitors’ median.',
    tone: 'warn',
  },
  dofollow_below_50pct: {
    label: 'dofollow below 50%',
    explanation: 'Under half the backlinks are dofollow, so most pass little authority.',
    tone: 'warn',
  },
  broken_links_present: {
    label: 'broken links',
    explanation: 'Some backlinks point at broken pages: redirect or restore them to keep their value.',
    tone: 'warn',
  },
  anchor_overoptimized: {
    label: 'anchor over-optimized',
    explanation: 'One non-brand anchor text is over 30% of backlinks, which can look manipulative.',
    tone: 'bad',
  },
};

function trend(data: BacklinksOverview, styles: DomainStyles, months: number): HTMLElement {
  const series = data.trend.filter((t) => t.points.length > 0);
  if (series.length === 0)
    return section(
      'Referring domains over time',
      emptyState('No trend points yet.', 'Monitoring stores monthly points with each daily snapshot.'),
    );
  const labels = [...new Set(series.flatMap((s) => s.points.map((p) => p.month)))].sort();
  const valueAt = (domain: string, month: string) =>
    series.find((s) => s.domain === domain)?.points.find((p) => p.month === month)?.referring_domains ?? null;
  const [chart, legend] = domainLines(
    {
      name: 'trend',
      summary: `Referring domains per month over ${months} months, one line per domain: ${series.map((s) => styles.of(s.domain).label).join(', ')}. The table below has the figures.`,
      axis: 'Referring domains',
      pointRadius: labels.length > 18 ? 0 : 3,
    },
    labels,
    series.map((s) => ({ domain: s.domain, values: labels.map((month) => valueAt(s.domain, month)) })),
    styles,
  );
  const table = dataTable<string>({
    name: 'trend',
    caption: 'Referring domains per month, per domain (the chart’s data)',
    columns: [
      { label: 'Month', cell: (m) => m, sortBy: (m) => m },
      ...series.map((s) => ({
        label: styles.of(s.domain).label,
        cell: (m: string) => fmtInt(valueAt(s.domain, m)),
        sortBy: (m: string) => valueAt(s.domain, m),
        numeric: true,
      })),
    ],
    rows: labels,
  });
  return section(
    'Referring domains over time',
    legend,
    chart,
    h('details', null, h('summary', null, 'Show the figures as a table'), table),
  );
}

type Summary = BacklinkProfile['summary'];
/** A summary figure's keys: those that are numbers. */
type Figure = { [K in keyof Summary]: Summary[K] extends number | null ? K : never }[keyof Summary];

/** A profile's summary figure as a numeric column, shown with `shown`. */
const figure = (label: string, key: Figure, shown: (n: number | null) => string): Column<BacklinkProfile> => ({
  label,
  cell: (p) => shown(p.summary[key]),
  sortBy: (p) => p.summary[key],
  numeric: true,
});

function profiles(data: BacklinksOverview, styles: DomainStyles): HTMLElement {
  return section(
    'Profiles',
    dataTable<BacklinkProfile>({
      name: 'profiles',
      caption: 'Backlink profiles from the latest monitoring snapshot of each domain',
      columns: [
        {
          label: 'Domain',
          cell: (p) => domainLabel(styles.of(p.domain), { showDomain: true }),
          sortBy: (p) => styles.of(p.domain).label.toLowerCase(),
        },
        figure('Rank', 'rank', fmtInt),
        figure('Referring domains', 'referring_domains', fmtInt),
        figure('Backlinks', 'backlinks', fmtInt),
        figure('Backlinks per domain', 'backlinks_per_referring_domain', (n) => (n === null ? '—' : `${fmtNum(n)}:1`)),
        figure('Spam score', 'spam_score', fmtNum),
        figure('Dofollow', 'dofollow_share', fmtShare),
        figure('Broken links', 'broken_links', fmtInt),
        { label: 'Snapshot', cell: (p) => fmtTime(p.snapshot_at), sortBy: (p) => p.snapshot_at, time: true },
      ],
      rows: data.profiles,
      rowClass: (p) => (p.is_site ? 'is-site' : undefined),
    }),
  );
}

function flagBadge(flag: HealthFlag): HTMLElement {
  const meaning = HEALTH_FLAGS[flag];
  return h(
    'li',
    { attrs: { 'data-flag': flag } },
    h('span', { class: `badge ${meaning.tone}` }, meaning.label),
    h('span', null, meaning.explanation),
  );
}

function health(data: BacklinksOverview, styles: DomainStyles): HTMLElement {
  return section(
    'Health',
    h(
      'div',
      { class: 'health-grid' },
      data.profiles.map((p) =>
        h(
          'div',
          { class: 'health', attrs: { 'data-domain': p.domain } },
          h('h3', null, domainLabel(styles.of(p.domain))),
          p.health.length
            ? h('ul', { class: 'flags' }, p.health.map(flagBadge))
            : h('p', { class: 'muted' }, 'No flags.'),
        ),
      ),
    ),
  );
}

function gap(data: BacklinksOverview, styles: DomainStyles): HTMLElement {
  if (data.gap.length === 0)
    return section(
      'Link gap',
      emptyState(
        'No link gap.',
        data.profiles.some((p) => p.is_competitor)
          ? 'No domain links to your competitors without linking to you (as of the site’s last snapshot).'
          : 'The gap lists domains that link to competitors but not to you: add a competitor to see it.',
      ),
    );
  const ranked = data.gap.map((row, index) => ({ ...row, place: index + 1 }));
  const table = (rows: typeof ranked) =>
    dataTable<(typeof ranked)[number]>({
      name: 'gap',
      caption:
        'Domains linking to competitors but not to your site, ranked for outreach: most competitors linked first, then by rank',
      columns: [
        { label: '#', cell: (r) => r.place, sortBy: (r) => r.place, numeric: true },
        { label: 'Domain', cell: (r) => r.domain, sortBy: (r) => r.domain },
        { label: 'Rank', cell: (r) => fmtInt(r.rank), sortBy: (r) => r.rank, numeric: true },
        {
          label: 'Competitors linked',
          cell: (r) => r.links_to.length,
          sortBy: (r) => r.links_to.length,
          numeric: true,
        },
        {
          label: 'Links to',
          cell: (r) =>
            h(
              'span',
              { class: 'domains' },
              r.links_to.map((d) => domainLabel(styles.of(d))),
            ),
          wrap: true,
        },
      ],
      rows,
    });
  const box = h('div', null, table(ranked.slice(0, GAP_SHOWN)));
  const all = h(
    'button',
    { attrs: { type: 'button' }, on: { click: () => (box.replaceChildren(table(ranked)), all.remove()) } },
    `Show all ${ranked.length} domains`,
  );
  return section('Link gap', box, ranked.length > GAP_SHOWN ? h('div', { class: 'actions' }, all) : null);
}
