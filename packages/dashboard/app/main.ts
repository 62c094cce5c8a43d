import './styles.css';
import { createApi, type Api } from './api';
import { ApiFailure, errorInWords } from './errors';
import { destroyCharts, mountCharts } from './charts';
import { h, replace } from './dom';
import { forgetKey, keyForm, saveKey, takeKey } from './key';
import type { View, ViewContext } from './view';
import { backlinksView } from './views/backlinks';
import { competitorsView } from './views/competitors';
import { landscapeView } from './views/landscape';
import { pagesView } from './views/pages';
import { spendView } from './views/spend';
import { trafficView } from './views/traffic';

const VIEWS: readonly [View, ...View[]] = [
  landscapeView,
  trafficView,
  backlinksView,
  competitorsView,
  pagesView,
  spendView,
];

function appElement(): HTMLElement {
  const el = document.getElementById('app');
  if (!el) throw new Error('The page has no #app element to show the dashboard in');
  return el;
}
const app = appElement();
let api: Api | null = null;
/** Counts renders, so a slow one that was overtaken by a newer navigation leaves the page alone. */
let renders = 0;

function route(): { view: View; params: string[] } {
  const [id, ...params] = location.hash.slice(1).split('/').map(decodeURIComponent);
  return { view: VIEWS.find((v) => v.id === id) ?? VIEWS[0], params };
}

function askForKey(problem?: string) {
  api = null;
  destroyCharts();
  replace(
    app,
    h(
      'main',
      { class: 'narrow' },
      keyForm((key) => {
        saveKey(key);
        start();
      }, problem),
    ),
  );
}

function start() {
  const key = takeKey();
  if (!key) return askForKey();
  api = createApi(key);
  const status = h('div', { class: 'status', attrs: { role: 'status', 'aria-live': 'polite' } });
  const main = h('main', { attrs: { id: 'main' } });
  const nav = h(
    'nav',
    { attrs: { 'aria-label': 'Views' } },
    h(
      'ul',
      null,
      VIEWS.map((v) => h('li', null, h('a', { attrs: { href: `#${v.id}`, 'data-view': v.id } }, v.label))),
    ),
  );
  const forget = h(
    'button',
    {
      class: 'quiet',
      attrs: { type: 'button' },
      on: {
        click: () => {
          forgetKey();
          askForKey();
        },
      },
    },
    'Forget key',
  );
  replace(
    app,
    h('header', { class: 'top' }, h('span', { class: 'brand' }, 'Content research'), nav, forget),
    status,
    main,
  );
  void render({ main, status, nav, focus: false });
  window.onhashchange = () => void render({ main, status, nav, focus: true });
}

async function render(layout: {
  main: HTMLElement;
  status: HTMLElement;
  nav: HTMLElement;
  focus: boolean;
  keepStatus?: boolean;
}) {
  if (!api) return;
  const current = ++renders;
  const { view, params } = route();
  destroyCharts();
  for (const link of layout.nav.querySelectorAll('a')) {
    if (link.dataset.view === view.id) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.title = `${view.title} · Content research dashboard`;
  if (!layout.keepStatus) replace(layout.status);
  const heading = h('h1', { attrs: { tabindex: -1 } }, view.title);
  const root = h(
    'div',
    { class: 'view', attrs: { 'data-view': view.id, 'aria-busy': 'true' } },
    h('p', { class: 'loading' }, 'Loading…'),
  );
  replace(layout.main, heading, root);
  if (layout.focus) heading.focus();
  const ctx: ViewContext = {
    api,
    root: h('div', { class: 'view-body' }),
    params,
    announce: (message) => replace(layout.status, h('p', null, message)),
    navigate: (next) => {
      location.hash = [view.id, ...next].map(encodeURIComponent).join('/');
    },
    act: async (run) => {
      replace(layout.status, h('p', null, 'Working…'));
      try {
        replace(layout.status, h('p', { class: 'done' }, await run()));
      } catch (error) {
        replace(layout.status, h('p', { class: 'error' }, errorInWords(error)));
      }
      await render({ ...layout, focus: false, keepStatus: true });
    },
  };
  try {
    await view.render(ctx);
    if (current !== renders) return;
    replace(root, ctx.root);
    // Busy until the charts are drawn at their settled size, not merely made.
    await mountCharts();
  } catch (error) {
    if (current !== renders) return;
    if (error instanceof ApiFailure && error.status === 401)
      return askForKey(`The API refused the key: ${errorInWords(error)}`);
    replace(root, h('div', { class: 'error', attrs: { role: 'alert' } }, errorInWords(error)));
  } finally {
    root.removeAttribute('aria-busy');
  }
}

start();
