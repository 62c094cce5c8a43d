import { WINDOWS } from '../budget';
import { confirmAction } from '../confirm';
import { h } from '../dom';
import { fmtUsd } from '../format';
import { BUDGET_USD_MAX } from '../limits';
import { isBudget, isUsage } from '../replies';
import { spendReport } from '../reports/spend';
import type { Budget } from '../types';
import type { View, ViewContext } from '../view';

export const spendView: View = {
  id: 'spend',
  label: 'Spend',
  title: 'Spend this month',
  async render(ctx) {
    const [usage, budget] = await Promise.all([
      ctx.api.get('/v1/usage?by=day', isUsage),
      ctx.api.get('/v1/budget', isBudget),
    ]);
    ctx.root.append(...spendReport(usage, budget, budgetForm(ctx, budget)));
  },
};

/** Sets both limits at once: an empty field is no limit. Free, but it changes what the agent may spend, so it asks first. */
function budgetForm(ctx: ViewContext, budget: Budget): HTMLElement {
  const input = (key: (typeof WINDOWS)[number]['key']) =>
    h('input', {
      attrs: {
        id: `budget-${key}`,
        name: key,
        type: 'number',
        min: 0,
        max: BUDGET_USD_MAX,
        step: 'any',
        inputmode: 'decimal',
        placeholder: 'no limit',
        value: budget[key].limit_usd ?? '',
      },
    });
  const inputs = { daily: input('daily'), monthly: input('monthly') };
  const limitOf = (input: HTMLInputElement) => (input.value.trim() === '' ? null : input.valueAsNumber);
  return h(
    'form',
    {
      class: 'budget-form',
      on: {
        submit: (event) => {
          event.preventDefault();
          void setBudget(ctx, budget, { daily_usd: limitOf(inputs.daily), monthly_usd: limitOf(inputs.monthly) });
        },
      },
    },
    h(
      'div',
      { class: 'form-row' },
      WINDOWS.map(({ key, adjective }) =>
        h(
          'div',
          { class: 'field' },
          h(
            'label',
            { attrs: { for: `budget-${key}` } },
            `${adjective.charAt(0).toUpperCase()}${adjective.slice(1)} limit (USD)`,
          ),
          inputs[key],
        ),
      ),
      h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Set budget…'),
    ),
    h('p', { class: 'note' }, 'Leave a field empty for no limit. Setting the budget is free; you confirm first.'),
  );
}

const limitInWords = (usd: number | null) => (usd === null ? 'no limit' : fmtUsd(usd));

async function setBudget(
  ctx: ViewContext,
  budget: Budget,
  next: { daily_usd: number | null; monthly_usd: number | null },
) {
  const change = (key: 'daily' | 'monthly', usd: number | null, adjective: string) =>
    h(
      'li',
      null,
      `${adjective}: ${limitInWords(usd)}`,
      usd === budget[key].limit_usd ? ' (unchanged)' : ` (now ${limitInWords(budget[key].limit_usd)})`,
    );
  const ok = await confirmAction({
    title: 'Set the budget?',
    cost: [
      h('ul', null, change('daily', next.daily_usd, 'Daily'), change('monthly', next.monthly_usd, 'Monthly')),
      h(
        'p',
        null,
        'Free: no provider call. It changes what the agent may spend: a paid call that would pass a limit is refused before any provider is called, and research stops there.',
      ),
    ],
    confirmLabel: 'Set budget',
  });
  if (!ok) return;
  await ctx.act(async () => {
    const set = await ctx.api.put('/v1/budget', next, isBudget);
    return `Budget set: daily ${limitInWords(set.daily.limit_usd)}, monthly ${limitInWords(set.monthly.limit_usd)}. No cost.`;
  });
}
