import { SearchConsoleMessage } from '@cm/contract';
import { getSearchConsole, getStore, meterOf, sqsWorker } from '@cm/runtime';
import { importSearchDay } from '@cm/tools';

/** A site's Search Console day imported: its rows read, one day stored, the calls in the ledger at $0. */
export const handler = sqsWorker('search-console', SearchConsoleMessage, async (message, _observation, deadline) => {
  const deps = {
    store: getStore(),
    searchConsole: await getSearchConsole(),
    meter: meterOf(undefined, { signal: deadline }),
    now: new Date(),
  };
  await importSearchDay(deps, message);
});
