import type { Api } from '../api';
import { h } from '../dom';
import { ApiFailure } from '../errors';
import { fmtDay, fmtTime } from '../format';
import { TRAFFIC_WINDOW_DEFAULT, TRAFFIC_WINDOWS } from '../limits';
import { isSearchConsole, isSearchTraffic } from '../replies';
import { searchTrafficReport } from '../reports/search-traffic';
import type { SearchConsole } from '../types';
import type { View } from '../view';
import { section, stat } from '../widgets';

/* What search sent the site: its Search Console connection, then search_traffic's figures over the window chosen. */

export const trafficView: View = {
  id: 'traffic',
  label: 'Search traffic',
  title: 'Search traffic',
  async render(ctx) {
    const asked = Number(ctx.params[0]);
    const days = TRAFFIC_WINDOWS.find((w) => w === asked) ?? TRAFFIC_WINDOW_DEFAULT;
    const select = h(
      'select',
      { attrs: { id: 'window-days' }, on: { change: () => ctx.navigate([select.value]) } },
      TRAFFIC_WINDOWS.map((w) => h('option', { attrs: { value: w, selected: w === days } }, `${w} days`)),
    );
    ctx.root.append(h('div', { class: 'toolbar' }, h('label', { attrs: { for: 'window-days' } }, 'Window'), select));
    const [connection, traffic] = await Promise.all([
      searchConsoleOf(ctx.api),
      ctx.api.tool('search_traffic', { window_days: days }, isSearchTraffic),
    ]);
    ctx.root.append(connectionPanel(connection), ...searchTrafficReport(traffic));
  },
};

/** The site's connection, or null when it has none (the API answers 404). */
async function searchConsoleOf(api: Api): Promise<SearchConsole | null> {
  try {
    return await api.get('/v1/search-console', isSearchConsole);
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 404) return null;
    throw error;
  }
}

const STATUS_WORDS: Record<SearchConsole['status'], string> = {
  pending: 'pending: the first import has not ended yet',
  connected: 'connected: the last import read the property',
  failed: 'failed: the last import could not read the property',
};

/** The connection's state, or how to make one; what the owner does in Search Console either way. */
function connectionPanel(connection: SearchConsole | null): HTMLElement {
  const addUser = (email: string) => [
    'In Search Console, Settings → Users and permissions → Add user: ',
    h('code', { attrs: { 'data-field': 'service-account' } }, email),
    ', permission Restricted. The import reads the property as that account.',
  ];
  if (!connection)
    return section(
      'Search Console',
      h(
        'div',
        { class: 'empty', attrs: { role: 'status', 'data-search-console': 'not-connected' } },
        h('p', { class: 'empty-title' }, 'Search Console is not connected.'),
        h(
          'p',
          null,
          'Connect the site’s property with ',
          h('code', null, 'PUT /v1/search-console'),
          ' and ',
          h('code', null, '{ "property": "sc-domain:<your domain>", "verification_token": "<token>" }'),
          ' (or the URL-prefix property ',
          h('code', null, 'https://<your domain>/'),
          '). The token is the one Google’s HTML tag or HTML file method shows: the site’s domain then serves it, so verifying the property is one step.',
        ),
        h(
          'p',
          null,
          'The reply names the service account e-mail to add as a user of the property (Search Console → Settings → Users and permissions → Add user, permission Restricted). The last 56 days are imported then, and each day after.',
        ),
      ),
    );
  return section(
    'Search Console',
    h(
      'dl',
      { class: 'stats', attrs: { 'data-search-console': connection.status } },
      stat('Property', h('code', { attrs: { 'data-field': 'property' } }, connection.property)),
      stat('Status', h('span', { attrs: { 'data-field': 'status' } }, STATUS_WORDS[connection.status])),
      stat('Imported through', h('span', { attrs: { 'data-field': 'imported' } }, fmtDay(connection.imported_through))),
      stat('Connected', fmtTime(connection.connected_at)),
    ),
    connection.last_error ? h('p', { class: 'error' }, `Last import: ${connection.last_error}`) : null,
    connection.service_account_email
      ? h('p', { class: 'note' }, addUser(connection.service_account_email))
      : h('p', { class: 'note' }, 'The sandbox needs no service account: it derives its figures offline.'),
    connection.verification
      ? h(
          'p',
          { class: 'note' },
          'Verification: the site’s domain serves ',
          h('code', null, connection.verification.file_url),
          ' and ',
          h('code', null, connection.verification.meta_tag),
          ' on its home page.',
        )
      : h(
          'p',
          { class: 'note' },
          'No verification token: PUT /v1/search-console with the verification_token Google shows, and the site’s domain serves it.',
        ),
  );
}
