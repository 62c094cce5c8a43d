import type { Api } from './api';
import { budgetLeftInWords } from './budget';
import type { DomainStyle } from './colors';
import { h, type Child } from './dom';
import { errorInWords } from './errors';
import { isBudget } from './replies';

/* Small pieces every view uses: how a domain is shown, empty states, errors. */

/** A colour swatch; a light colour gets its darker outline so it stays visible on white. */
export function swatch(style: Pick<DomainStyle, 'fill' | 'border'>): HTMLElement {
  return h('span', {
    class: 'swatch',
    attrs: { 'aria-hidden': 'true' },
    vars: { '--fill': style.fill, '--border': style.border },
  });
}

/** A domain as the app names it: swatch, display_name (domain when none), and "your site" for the site. */
export function domainLabel(style: DomainStyle, options: { showDomain?: boolean } = {}): HTMLElement {
  return h(
    'span',
    { class: `domain${style.isSite ? ' is-site' : ''}`, attrs: { 'data-domain': style.domain } },
    swatch(style),
    h('span', { class: 'domain-name' }, style.label),
    options.showDomain && style.label !== style.domain ? h('span', { class: 'muted' }, ` ${style.domain}`) : null,
    style.isSite ? h('span', { class: 'tag' }, 'your site') : null,
  );
}

/** What is missing and what to do about it. */
export function emptyState(title: string, ...next: Child[]): HTMLElement {
  return h(
    'div',
    { class: 'empty', attrs: { role: 'status' } },
    h('p', { class: 'empty-title' }, title),
    h('p', null, next),
  );
}

/** A figure and its name in a `dl.stats`. */
export const stat = (label: string, value: Child): HTMLElement =>
  h('div', null, h('dt', null, label), h('dd', null, value));

export function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'panel' }, h('h2', null, title), children);
}

/** The budget's paragraph in a paid action's dialog; if it cannot be read, the dialog says so and still opens. */
export async function budgetNote(api: Api): Promise<HTMLElement> {
  try {
    return h('p', { attrs: { 'data-budget-note': '' } }, budgetLeftInWords(await api.get('/v1/budget', isBudget)));
  } catch (error) {
    return h(
      'p',
      { class: 'error', attrs: { 'data-budget-note': '' } },
      `The budget could not be read: ${errorInWords(error)}`,
    );
  }
}
