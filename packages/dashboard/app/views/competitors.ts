import { domainStyles, needsOutline, PALETTE } from '../colors';
import { confirmAction } from '../confirm';
import { h } from '../dom';
import { MAX_ACTIVE_COMPETITORS } from '../limits';
import { costInWords, fmtTime } from '../format';
import { isBacklinks, isCompetitorAdded, isDeleted } from '../replies';
import { dataTable } from '../table';
import { loadCompetitors } from '../tracked';
import type { CompetitorRow } from '../types';
import type { View, ViewContext } from '../view';
import { budgetNote, emptyState, section, swatch } from '../widgets';

export const competitorsView: View = {
  id: 'competitors',
  label: 'Competitors',
  title: 'Competitors',
  async render(ctx) {
    const [competitors, backlinks] = await Promise.all([
      loadCompetitors(ctx.api),
      // Stored snapshots only: when monitoring last ran for each domain.
      ctx.api.tool('serp_backlinks', { scope: 'all', depth: 'overview', trend_months: 1 }, isBacklinks),
    ]);
    const lastRun = new Map('profiles' in backlinks ? backlinks.profiles.map((p) => [p.domain, p.snapshot_at]) : []);
    const styles = domainStyles(competitors, null);
    const list = competitors.length
      ? dataTable<CompetitorRow>({
          name: 'competitors',
          caption: `${competitors.length} of ${MAX_ACTIVE_COMPETITORS} competitors tracked`,
          columns: [
            {
              label: 'Colour',
              cell: (c) =>
                h(
                  'span',
                  { class: 'color-cell' },
                  swatch(styles.of(c.domain)),
                  h('code', null, styles.of(c.domain).fill),
                ),
            },
            {
              label: 'Display name',
              cell: (c) => c.display_name || h('span', { class: 'muted' }, '(none: the domain is shown)'),
              sortBy: (c) => c.display_name ?? null,
            },
            { label: 'Domain', cell: (c) => c.domain, sortBy: (c) => c.domain },
            { label: 'Tracked since', cell: (c) => fmtTime(c.added_at), sortBy: (c) => c.added_at },
            {
              label: 'Last monitoring run',
              cell: (c) => (lastRun.get(c.domain) ? fmtTime(lastRun.get(c.domain)) : 'not yet: queued'),
              sortBy: (c) => lastRun.get(c.domain) ?? null,
            },
            {
              label: 'Action',
              cell: (c) =>
                h(
                  'button',
                  {
                    class: 'small danger',
                    attrs: { type: 'button', 'data-stop': c.domain },
                    on: { click: () => void stop(ctx, c, styles.of(c.domain).label) },
                  },
                  'Stop monitoring…',
                ),
            },
          ],
          rows: competitors,
        })
      : emptyState(
          'No competitors tracked yet.',
          'Add one below: it then appears in share of voice and backlinks, in its colour and under its display name.',
        );
    ctx.root.append(section('Tracked competitors', list), addForm(ctx, competitors));
  },
};

function addForm(ctx: ViewContext, competitors: CompetitorRow[]): HTMLElement {
  const full = competitors.length >= MAX_ACTIVE_COMPETITORS;
  const domain = h('input', {
    attrs: {
      id: 'c-domain',
      type: 'text',
      required: true,
      placeholder: 'example.com',
      disabled: full,
      autocomplete: 'off',
    },
  });
  const name = h('input', {
    attrs: { id: 'c-name', type: 'text', maxlength: 100, placeholder: 'Example', disabled: full },
  });
  const color = h('input', {
    attrs: { id: 'c-color', type: 'color', value: PALETTE[competitors.length % PALETTE.length], disabled: full },
  });
  const colorNote = h('p', { class: 'note', attrs: { 'aria-live': 'polite' } });
  const noteColor = () => {
    colorNote.textContent = needsOutline(color.value)
      ? 'A light colour: charts and swatches draw it with a darker outline so it stays visible.'
      : '';
  };
  color.addEventListener('input', noteColor);
  const form = h(
    'form',
    {
      class: 'add-competitor',
      on: {
        submit: (event) => {
          event.preventDefault();
          void add(
            ctx,
            { domain: domain.value.trim(), display_name: name.value.trim(), color: color.value },
            competitors.length,
          );
        },
      },
    },
    h(
      'div',
      { class: 'form-row' },
      h('div', { class: 'field' }, h('label', { attrs: { for: 'c-domain' } }, 'Domain'), domain),
      h('div', { class: 'field' }, h('label', { attrs: { for: 'c-name' } }, 'Display name (optional)'), name),
      h('div', { class: 'field' }, h('label', { attrs: { for: 'c-color' } }, 'Colour'), color),
      h('button', { class: 'primary', attrs: { type: 'submit', disabled: full } }, 'Add competitor…'),
    ),
    colorNote,
    h(
      'p',
      { class: 'note' },
      full
        ? `${MAX_ACTIVE_COMPETITORS} of ${MAX_ACTIVE_COMPETITORS} tracked: stop monitoring one to add another.`
        : `${competitors.length} of ${MAX_ACTIVE_COMPETITORS} tracked. Adding one starts paid backlink monitoring; you confirm first.`,
    ),
  );
  return section('Add a competitor', form);
}

async function add(ctx: ViewContext, input: { domain: string; display_name: string; color: string }, active: number) {
  if (!input.domain) return;
  const budget = await budgetNote(ctx.api);
  const ok = await confirmAction({
    title: `Track ${input.domain}?`,
    cost: [
      h(
        'p',
        null,
        `Backlink monitoring starts now and runs daily while it is tracked: a paid backlink-profile pull for ${input.domain} now and every day, and a new pull of your site’s profile and link gap now (paid backlink calls, recorded under “monitor”).`,
      ),
      h(
        'p',
        null,
        `It takes ${active + 1} of ${MAX_ACTIVE_COMPETITORS} places. It then appears in share of voice and backlinks under its display name and colour.`,
      ),
      budget,
    ],
    confirmLabel: 'Add and start monitoring',
  });
  if (!ok) return;
  await ctx.act(async () => {
    const result = await ctx.api.tool(
      'add_competitor',
      {
        domain: input.domain,
        color: input.color,
        ...(input.display_name ? { display_name: input.display_name } : {}),
      },
      isCompetitorAdded,
    );
    const what = result.created
      ? 'Now tracking'
      : result.completed
        ? 'Monitoring started for'
        : 'Already tracked, updated';
    const started = result.created || result.completed;
    const run = !started
      ? ''
      : result.monitoring_deferred > 0
        ? '; its first monitoring run waits for room in the budget (the daily schedule tries again)'
        : '; its first monitoring run is queued';
    return `${what} ${result.competitor.display_name ?? result.competitor.domain} (${result.competitor.domain})${run}. ${costInWords(result)} Monitoring’s pulls show on the Spend page under “monitor”.`;
  });
}

async function stop(ctx: ViewContext, competitor: CompetitorRow, label: string) {
  const ok = await confirmAction({
    title: `Stop monitoring ${label}?`,
    cost: [
      h(
        'p',
        null,
        'Free: no provider call. Its daily backlink monitoring stops, it leaves share of voice and backlinks, and its place under the cap of 10 is freed.',
      ),
      h('p', null, 'Its stored snapshots are kept (90 days). Adding it again later starts monitoring anew.'),
    ],
    confirmLabel: 'Stop monitoring',
  });
  if (!ok) return;
  await ctx.act(async () => {
    await ctx.api.tool('db_delete', { table: 'cm_competitors', id: competitor.id }, isDeleted);
    return `Stopped monitoring ${label} (${competitor.domain}). No cost.`;
  });
}
