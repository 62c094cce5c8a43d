import { LIMITS } from '@cm/contract';
import type { Api } from '../api';
import { domainStyles } from '../colors';
import { confirmAction } from '../confirm';
import { h } from '../dom';
import { costInWords, DEVICE_NAMES, plural } from '../format';
import { DEVICES } from '../limits';
import { landscapeReport } from '../reports/landscape';
import { loadCompetitors } from '../tracked';
import { isLandscape, isPageRow, isRefresh, isTopicRow, isUsage } from '../replies';
import type { Device, Landscape, LandscapeKeyword, PageRow, TopicRow } from '../types';
import type { View, ViewContext } from '../view';
import { budgetNote, emptyState } from '../widgets';

type Scope = { type: 'topic' | 'page'; id: number };

/** Days of rank history the view shows: stored rows, free to read. */
const HISTORY_DAYS = 30;

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
    // No device in the route: the API's default, the device the scope is tracked on.
    const device = DEVICES.find((d) => d === ctx.params[2]);
    const [landscape, competitors] = await Promise.all([
      ctx.api.tool(
        'serp_landscape',
        { [`${scope.type}_id`]: scope.id, depth: 'metrics', history_days: HISTORY_DAYS, ...(device ? { device } : {}) },
        isLandscape,
      ),
      loadCompetitors(ctx.api),
    ]);
    const site = landscape.sov.domains.find((d) => d.is_site)?.domain ?? null;
    ctx.root.append(
      h(
        'div',
        { class: 'toolbar' },
        picker(ctx, scope, device, topics, pages),
        devicePicker(ctx, scope, landscape.history?.device ?? device),
      ),
      ...landscapeReport(landscape, domainStyles(competitors, site), {
        coverage: (result) => pullButton(ctx, scope, result),
        keyword: (k) => refreshButton(ctx, k),
      }),
    );
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

function picker(
  ctx: ViewContext,
  scope: Scope,
  device: Device | undefined,
  topics: TopicRow[],
  pages: PageRow[],
): HTMLElement[] {
  const option = (type: Scope['type'], row: { id: number }, label: string) =>
    h('option', { attrs: { value: `${type}/${row.id}`, selected: scope.type === type && scope.id === row.id } }, label);
  const select = h(
    'select',
    {
      attrs: { id: 'scope' },
      on: { change: () => ctx.navigate([...select.value.split('/'), ...(device ? [device] : [])]) },
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
  return [h('label', { attrs: { for: 'scope' } }, 'Topic or page'), select];
}

/** The device whose rank history the view shows (the rank checks of each are apart): picking one reads its history, free. */
function devicePicker(ctx: ViewContext, scope: Scope, shown: Device | undefined): HTMLElement[] {
  const select = h(
    'select',
    {
      attrs: { id: 'device' },
      on: { change: () => ctx.navigate([scope.type, String(scope.id), select.value]) },
    },
    DEVICES.map((d) => h('option', { attrs: { value: d, selected: d === shown } }, DEVICE_NAMES[d])),
  );
  return [h('label', { attrs: { for: 'device' } }, 'Device'), select];
}

/** The coverage panel's action: pull the SERPs `list` would pull, after a dialog. */
function pullButton(ctx: ViewContext, scope: Scope, landscape: Landscape): HTMLElement {
  const committed = landscape.keywords.filter((k) => !k.is_idea);
  // `list` pulls only keywords with no stored SERP: in topic scope among the top N by score (its default), in page scope all of them.
  const targets = scope.type === 'topic' ? committed.slice(0, LIMITS.topicListDefault) : committed;
  const missing = targets.filter((k) => !k.serp);
  return h(
    'button',
    {
      attrs: { type: 'button', disabled: missing.length === 0 },
      on: { click: () => void pullSerps(ctx, scope, missing, landscape.scope.name) },
    },
    missing.length ? `Pull ${plural(missing.length, 'missing SERP')}…` : 'Every committed keyword has a SERP',
  );
}

/** A keyword's action: refresh its SERP, after a dialog. */
const refreshButton = (ctx: ViewContext, k: LandscapeKeyword) =>
  h(
    'button',
    {
      class: 'small',
      attrs: { type: 'button', 'data-refresh': k.keyword },
      on: { click: () => void refreshKeyword(ctx, k.keyword) },
    },
    'Refresh SERP…',
  );

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

/**
 * The site's SERP refreshes left today: the daily quota less today's serp_keyword_refresh calls in the
 * usage ledger (free to read; a refresh is one provider call, and one the provider failed is given back);
 * null when the ledger cannot be read.
 */
async function refreshesLeft(api: Api): Promise<number | null> {
  try {
    const usage = await api.get('/v1/usage?by=day', isUsage);
    const today = new Date().toISOString().slice(0, 10);
    const used = (usage.by_day ?? [])
      .filter((line) => line.day === today && line.tool === 'serp_keyword_refresh')
      .reduce((sum, line) => sum + line.calls, 0);
    return Math.max(0, LIMITS.refreshesPerDay - used);
  } catch {
    return null;
  }
}

/** What is left of the day's refresh quota, in words. */
const quotaLeftInWords = (left: number | null) =>
  left === null
    ? `It uses 1 of the site’s ${LIMITS.refreshesPerDay} SERP refreshes a day; how many are left today could not be read (the quota resets at midnight UTC).`
    : left === 0
      ? `0 of ${LIMITS.refreshesPerDay} SERP refreshes left today: the site’s quota is spent, so the refresh would be refused (it resets at midnight UTC).`
      : `It uses 1 of the site’s SERP refreshes: ${left} of ${LIMITS.refreshesPerDay} left today (the quota resets at midnight UTC).`;

async function refreshKeyword(ctx: ViewContext, keyword: string) {
  const [budget, left] = await Promise.all([budgetNote(ctx.api), refreshesLeft(ctx.api)]);
  const ok = await confirmAction({
    title: `Refresh the SERP of “${keyword}”?`,
    cost: [
      h(
        'p',
        null,
        `1 paid SERP pull from the data provider (Google, US/English, the top ${LIMITS.serpDepth} organic results), replacing the stored US/en SERP.`,
      ),
      h('p', { attrs: { 'data-quota-note': '' } }, quotaLeftInWords(left)),
      budget,
    ],
    confirmLabel: 'Refresh (1 paid pull)',
  });
  if (!ok) return;
  await ctx.act(async () => {
    const result = await ctx.api.tool('serp_keyword_refresh', { keyword }, isRefresh);
    const { used, limit } = result.quota;
    return `Refreshed “${keyword}”: ${result.row.items.length} results. ${costInWords(result)} ${Math.max(0, limit - used)} of ${limit} refreshes left today.`;
  });
}
