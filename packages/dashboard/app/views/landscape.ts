import { chartFigure } from '../charts';
import { domainStyles, type DomainStyle, type DomainStyles } from '../colors';
import { confirmAction } from '../confirm';
import { h, type Child } from '../dom';
import { costInWords, fmtInt, fmtNum, fmtShare, fmtDay, plural } from '../format';
import { dataTable, type Column } from '../table';
import { loadCompetitors } from '../tracked';
import { isLandscape, isPageRow, isRefresh, isTopicRow } from '../replies';
import type { Landscape, LandscapeKeyword, PageRow, TopicRow } from '../types';
import type { View, ViewContext } from '../view';
import { budgetNote, domainLabel, emptyState, section } from '../widgets';

/** Bars in the share-of-voice chart: the site and every tracked competitor, then the strongest others up to this many. */
const SOV_BARS = 12;
/** What `list` pulls in topic scope without `limit`: the top 10 committed keywords by score (docs/api.md#serp_landscape). */
const TOPIC_LIST_DEFAULT = 10;

type Scope = { type: 'topic' | 'page'; id: number };

export const landscapeView: View = {
  id: 'landscape',
  label: 'Keyword landscape',
  title: 'Keyword landscape',
  async render(ctx) {
    const [topics, pages] = await Promise.all([
      ctx.api.rows('cm_topics', isTopicRow),
      ctx.api.rows('cm_pages', isPageRow),
    ]);
    if (topics.length === 0 && pages.length === 0) {
      ctx.root.append(
        emptyState(
          'No topics or pages yet.',
          'Create a topic (db_insert into cm_topics), attach keywords to it with get_keywords {topic_id, seeds}, then pull their SERPs with serp_landscape {topic_id, depth: "list"}. The landscape appears here.',
        ),
      );
      return;
    }
    const scope = scopeOf(ctx.params, topics, pages);
    ctx.root.append(picker(ctx, scope, topics, pages));
    const out = h('div');
    ctx.root.append(out);
    const [landscape, competitors] = await Promise.all([
      ctx.api.tool('serp_landscape', { [`${scope.type}_id`]: scope.id, depth: 'metrics' }, isLandscape),
      loadCompetitors(ctx.api),
    ]);
    const site = landscape.sov.domains.find((d) => d.is_site)?.domain ?? null;
    const styles = domainStyles(competitors, site);
    out.append(coverage(landscape, scope, ctx), shareOfVoice(landscape, styles), keywordTables(landscape, styles, ctx));
  },
};

function scopeOf(params: string[], topics: TopicRow[], pages: PageRow[]): Scope {
  const [type, id] = [params[0], Number(params[1])];
  if (type === 'topic' && topics.some((t) => t.id === id)) return { type, id };
  if (type === 'page' && pages.some((p) => p.id === id)) return { type, id };
  const [topic] = topics;
  if (topic) return { type: 'topic', id: topic.id };
  const [page] = pages;
  if (page) return { type: 'page', id: page.id };
  throw new Error('No topic or page to show: the view shows its empty state instead');
}

function picker(ctx: ViewContext, scope: Scope, topics: TopicRow[], pages: PageRow[]): HTMLElement {
  const option = (type: Scope['type'], row: { id: number }, label: string) =>
    h('option', { attrs: { value: `${type}/${row.id}`, selected: scope.type === type && scope.id === row.id } }, label);
  const select = h(
    'select',
    {
      attrs: { id: 'scope' },
      on: { change: () => ctx.navigate(select.value.split('/')) },
    },
    topics.length
      ? h(
          'optgroup',
          { attrs: { label: 'Topics' } },
          topics.map((t) => option('topic', t, t.name)),
        )
      : null,
    pages.length
      ? h(
          'optgroup',
          { attrs: { label: 'Pages' } },
          pages.map((p) => option('page', p, p.title)),
        )
      : null,
  );
  return h('div', { class: 'toolbar' }, h('label', { attrs: { for: 'scope' } }, 'Topic or page'), select);
}

function coverage(landscape: Landscape, scope: Scope, ctx: ViewContext): HTMLElement {
  const c = landscape.coverage;
  const committed = landscape.keywords.filter((k) => !k.is_idea);
  // `list` pulls only keywords with no stored SERP: in topic scope among the top 10 by score, in page scope all of them.
  const targets = scope.type === 'topic' ? committed.slice(0, TOPIC_LIST_DEFAULT) : committed;
  const missing = targets.filter((k) => !k.serp);
  const pull = h(
    'button',
    {
      attrs: { type: 'button', disabled: missing.length === 0 },
      on: { click: () => void pullSerps(ctx, scope, missing, landscape.scope.name) },
    },
    missing.length ? `Pull ${plural(missing.length, 'missing SERP')}…` : 'Every committed keyword has a SERP',
  );
  return h(
    'section',
    { class: 'panel coverage', attrs: { 'aria-label': 'Coverage' } },
    h('h2', null, `${landscape.scope.type === 'topic' ? 'Topic' : 'Page'}: ${landscape.scope.name}`),
    h(
      'dl',
      { class: 'stats' },
      stat('Keywords', fmtInt(c.keywords)),
      stat('With volume', `${fmtInt(c.with_volume)} (${fmtNum(c.volume_pct)}%)`),
      stat('With a stored SERP', `${fmtInt(c.with_serp)} (${fmtNum(c.serp_pct)}%)`),
      stat('Data', landscape.keywords.find((k) => k.serp)?.serp?.data_source ?? '—'),
    ),
    h('div', { class: 'actions' }, pull),
  );
}

const stat = (label: string, value: Child) => h('div', null, h('dt', null, label), h('dd', null, value));

async function pullSerps(ctx: ViewContext, scope: Scope, missing: LandscapeKeyword[], name: string) {
  const budget = await budgetNote(ctx.api);
  const ok = await confirmAction({
    title: `Pull the missing SERPs of ${name}?`,
    cost: [
      h(
        'p',
        null,
        `Up to ${plural(missing.length, 'paid SERP pull')} from the data provider, one per keyword without a stored SERP: ${missing.map((k) => k.keyword).join(', ')}.`,
      ),
      h(
        'p',
        null,
        'Keywords that already have a SERP are skipped at no cost. This does not use the daily refresh quota.',
      ),
      budget,
    ],
    confirmLabel: `Pull ${plural(missing.length, 'SERP')}`,
  });
  if (!ok) return;
  await ctx.act(async () => {
    const result = await ctx.api.tool('serp_landscape', { [`${scope.type}_id`]: scope.id, depth: 'list' }, isLandscape);
    const list = result.list;
    return `Pulled ${plural(list?.fetched.length ?? 0, 'SERP')}${list?.failed.length ? `; failed: ${list.failed.join(', ')}` : ''}. ${costInWords(result)}`;
  });
}

function verdictText(landscape: Landscape, styles: DomainStyles): string {
  const { verdict, verdict_reason, domains } = landscape.sov;
  if (!verdict) return `No verdict: ${verdict_reason ?? 'nothing to compare yet.'}`;
  const site = domains.find((d) => d.is_site);
  const rival =
    domains.filter((d) => d.is_competitor).sort((a, b) => b.sov - a.sov)[0] ??
    domains.filter((d) => !d.is_site).sort((a, b) => b.sov - a.sov)[0];
  const against = rival ? `${styles.of(rival.domain).label} (${fmtShare(rival.sov)})` : 'the others';
  const words = { leads: 'leads', contends: 'contends with', trails: 'trails' }[verdict];
  return `Your site ${words} ${against}, with ${fmtShare(site?.sov ?? 0)} share of voice.`;
}

function shareOfVoice(landscape: Landscape, styles: DomainStyles): HTMLElement {
  const domains = landscape.sov.domains;
  const verdict = h(
    'p',
    { class: `verdict verdict-${landscape.sov.verdict ?? 'none'}` },
    verdictText(landscape, styles),
  );
  if (domains.length === 0)
    return section(
      'Share of voice',
      verdict,
      emptyState(
        'No SERPs stored yet.',
        'Use “Pull missing SERPs” above: share of voice is computed from stored SERPs.',
      ),
    );
  const tracked = domains.filter((d) => d.is_site || d.is_competitor);
  const others = domains.filter((d) => !d.is_site && !d.is_competitor).slice(0, Math.max(0, SOV_BARS - tracked.length));
  const bars = [...tracked, ...others].sort((a, b) => b.sov - a.sov);
  const barStyles = bars.map((d) => styles.of(d.domain));
  const siteIndex = barStyles.findIndex((s) => s.isSite);
  const chart = chartFigure(
    'sov',
    `Share of voice by domain: ${bars.map((d) => `${styles.of(d.domain).label} ${fmtShare(d.sov)}`).join(', ')}.`,
    {
      type: 'bar',
      data: {
        labels: barStyles.map((s) => (s.isSite ? `★ ${s.label} (your site)` : s.label)),
        datasets: [
          {
            label: 'Share of voice',
            data: bars.map((d) => d.sov * 100),
            backgroundColor: barStyles.map((s) => s.fill),
            borderColor: barStyles.map((s) => s.border),
            borderWidth: barStyles.map((s) => (s.isSite ? 2 : 1)),
            barPercentage: 0.8,
          },
        ],
      },
      options: {
        indexAxis: 'y',
        maintainAspectRatio: false,
        scales: {
          x: { beginAtZero: true, title: { display: true, text: 'Share of voice (%)' } },
          y: { ticks: { font: (c) => ({ weight: c.index === siteIndex ? 'bold' : 'normal' }) } },
        },
        plugins: { tooltip: { callbacks: { label: (item) => `${fmtNum(item.parsed.x)}%` } } },
      },
    },
  );
  chart.classList.add(`bars-${bars.length > 8 ? 'many' : 'few'}`);
  const table = dataTable<(typeof domains)[number]>({
    name: 'sov',
    caption: `Share of voice of the charted domains: your site, tracked competitors in their colours, and the strongest others${domains.length > bars.length ? ` (${domains.length - bars.length} more domains not shown)` : ''}`,
    columns: [
      {
        label: 'Domain',
        cell: (d) => domainLabel(styles.of(d.domain), { showDomain: true }),
        sortBy: (d) => styles.of(d.domain).label.toLowerCase(),
      },
      { label: 'Share of voice', cell: (d) => fmtShare(d.sov), sortBy: (d) => d.sov, numeric: true },
      {
        label: 'Keywords ranked',
        cell: (d) => fmtInt(d.keywords_ranked),
        sortBy: (d) => d.keywords_ranked,
        numeric: true,
      },
      { label: 'Kind', cell: (d) => (d.is_site ? 'your site' : d.is_competitor ? 'tracked competitor' : 'other') },
    ],
    rows: bars,
    rowClass: (d) => (d.is_site ? 'is-site' : d.is_competitor ? 'is-competitor' : undefined),
  });
  return section('Share of voice', verdict, chart, table);
}

function bestCompetitor(k: LandscapeKeyword, styles: DomainStyles): { style: DomainStyle; position: number } | null {
  const best = [...(k.serp?.competitor_positions ?? [])].sort((a, b) => a.position - b.position)[0];
  return best ? { style: styles.of(best.domain), position: best.position } : null;
}

function keywordTables(landscape: Landscape, styles: DomainStyles, ctx: ViewContext): HTMLElement {
  const columns: Column<LandscapeKeyword>[] = [
    { label: 'Keyword', cell: (k) => k.keyword, sortBy: (k) => k.keyword, wrap: true },
    { label: 'Volume', cell: (k) => fmtInt(k.volume), sortBy: (k) => k.volume, numeric: true },
    {
      label: 'CPC (USD)',
      cell: (k) => (k.cpc_usd === null ? '—' : `$${k.cpc_usd.toFixed(2)}`),
      sortBy: (k) => k.cpc_usd,
      numeric: true,
    },
    { label: 'Competition', cell: (k) => fmtNum(k.competition), sortBy: (k) => k.competition, numeric: true },
    { label: 'Intent', cell: (k) => k.intent ?? '—', sortBy: (k) => k.intent },
    { label: 'Score', cell: (k) => fmtNum(k.score), sortBy: (k) => k.score, numeric: true },
    {
      label: 'Site position',
      cell: (k) => (k.serp ? (k.serp.site_position ?? 'not in top 20') : 'no SERP'),
      sortBy: (k) => k.serp?.site_position ?? null,
      numeric: true,
    },
    {
      label: 'Best competitor',
      cell: (k) => {
        const best = bestCompetitor(k, styles);
        return best && domainLabel(best.style);
      },
      sortBy: (k) => bestCompetitor(k, styles)?.style.label ?? null,
    },
    {
      label: 'Its position',
      cell: (k) => bestCompetitor(k, styles)?.position ?? '—',
      sortBy: (k) => bestCompetitor(k, styles)?.position ?? null,
      numeric: true,
    },
    {
      label: 'SERP of',
      cell: (k) => (k.serp ? `${fmtDay(k.serp.fetched_at)} (${k.serp.locale})` : '—'),
      sortBy: (k) => k.serp?.fetched_at ?? null,
    },
    {
      label: 'Action',
      cell: (k) =>
        h(
          'button',
          {
            class: 'small',
            attrs: { type: 'button', 'data-refresh': k.keyword },
            on: { click: () => void refreshKeyword(ctx, k.keyword) },
          },
          'Refresh SERP…',
        ),
    },
  ];
  const committed = landscape.keywords.filter((k) => !k.is_idea);
  const ideas = landscape.keywords.filter((k) => k.is_idea);
  return h(
    'div',
    null,
    section(
      'Keywords',
      committed.length
        ? dataTable({
            name: 'keywords',
            caption: 'Committed keywords, best score first',
            columns,
            rows: committed,
            rowClass: (k) => (k.serp?.site_position ? 'ranked' : undefined),
          })
        : emptyState(
            'No committed keywords in this scope.',
            'Attach keywords with get_keywords {topic_id, seeds}: attaching commits them.',
          ),
    ),
    section(
      'Ideas',
      ideas.length
        ? dataTable({
            name: 'ideas',
            caption: 'Keyword ideas (candidates, not committed)',
            columns: columns.slice(0, 6),
            rows: ideas,
          })
        : emptyState(
            'No keyword ideas in this scope.',
            'Ideas come from research in keywords mode or serp_landscape with ideas: true; attach one to a topic to commit it.',
          ),
    ),
  );
}

async function refreshKeyword(ctx: ViewContext, keyword: string) {
  const budget = await budgetNote(ctx.api);
  const ok = await confirmAction({
    title: `Refresh the SERP of “${keyword}”?`,
    cost: [
      h(
        'p',
        null,
        '1 paid SERP pull from the data provider (Google, US/English, the top 20 organic results), replacing the stored US/en SERP.',
      ),
      h('p', null, 'It uses 1 of the site’s 20 SERP refreshes for today (the quota resets at midnight UTC).'),
      budget,
    ],
    confirmLabel: 'Refresh (1 paid pull)',
  });
  if (!ok) return;
  await ctx.act(async () => {
    const result = await ctx.api.tool('serp_keyword_refresh', { keyword }, isRefresh);
    return `Refreshed “${keyword}”: ${result.row.items.length} results. ${costInWords(result)} ${result.quota.used} of ${result.quota.limit} refreshes used today.`;
  });
}
