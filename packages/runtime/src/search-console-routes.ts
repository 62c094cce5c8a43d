import { SearchConsoleInput } from '@cm/contract';
import { connectSearchConsole, disconnectSearchConsole, searchConsoleView } from '@cm/tools';
import { getConfig } from './config';
import { json } from './http';
import type { Handlers } from './http/router';
import { searchConsoleKey } from './providers';
import { enqueue } from './queues';
import { getStore } from './services';

/**
 * What the site's Search Console connection takes: the store, the queue its backfill goes to, and the
 * e-mail of the service account the owner adds (null: the sandbox's), read from the key without
 * Google's client, which only the import worker bundles.
 */
async function settings() {
  const key = await searchConsoleKey(getConfig().searchConsole);
  return { store: getStore(), enqueue, serviceAccount: key?.client_email ?? null };
}

/* The usage function's routes of the site's Search Console connection (docs/api/search-console.md#the-connection). */
export const searchConsoleRoutes: Handlers = {
  'GET /v1/search-console': async (request) => json(200, await searchConsoleView(await settings(), request.siteId)),
  'PUT /v1/search-console': async (request) =>
    json(
      200,
      await connectSearchConsole(await settings(), request.siteId, request.body(SearchConsoleInput), new Date()),
    ),
  'DELETE /v1/search-console': async (request) =>
    json(200, await disconnectSearchConsole(await settings(), request.siteId)),
};
