import { ApiError, type Enqueue, type SearchConsoleMessage } from '@cm/contract';
import { Meter, ProviderError, SandboxSearchConsole, type SearchConsoleProvider } from '@cm/providers';
import { connectSearchConsole, importSearchDay, queueSearchDays, searchConsoleView } from '@cm/tools';
import { given } from '../helpers/client';
import { startTestStack, type TestStack } from '../helpers/local';

/*
 * Connecting a real property (docs/api/search-console.md#the-connection): the account to add is known
 * before any connection, and a backfill refused because the account was added late is asked again.
 */

const ACCOUNT = 'importer@project.iam.gserviceaccount.com';
const NOW = new Date('2026-11-02T12:00:00.000Z');

let t: TestStack;
let siteId: number;
let host: string;
const sent: SearchConsoleMessage[] = [];
const enqueue: Enqueue = async (queue, message) => {
  if (queue === 'search-console') sent.push(message as SearchConsoleMessage);
};
const deps = () => ({ store: t.store, enqueue, serviceAccount: ACCOUNT });

/** Google, as the sandbox answers, except that it refuses while the account is not a user of the property. */
class Google implements SearchConsoleProvider {
  readonly name = 'google-search-console';
  readonly serviceAccount = ACCOUNT;
  readonly readsKeywords = true;
  userAdded = false;
  async dayRows(...args: Parameters<SearchConsoleProvider['dayRows']>) {
    if (!this.userAdded) throw new ProviderError(this.name, `refused ${ACCOUNT} access (403)`, false, 403);
    return new SandboxSearchConsole().dayRows(...args);
  }
}
const google = new Google();
const importAll = async (messages: SearchConsoleMessage[]) => {
  for (const message of messages)
    await importSearchDay({ store: t.store, searchConsole: google, meter: new Meter(), now: NOW }, message);
};

beforeAll(async () => {
  t = await startTestStack();
  const site = await t.newSite('Late account', { domain: 'late-account.example.com' });
  siteId = site.siteId;
  host = 'late-account.example.com';
  expect(await t.store.sites.serveDomain(siteId, host)).toBe('served');
}, 60_000);
afterAll(() => t.stop());

it('names the service account to add before the site connects', async () => {
  const refused = await searchConsoleView(deps(), siteId).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(ApiError);
  expect(refused).toMatchObject({ code: 'not_found', extra: { service_account_email: ACCOUNT } });
  expect((refused as ApiError).message).toContain(`add ${ACCOUNT} as a user`);
});

it('queues the backfill again on the same property while unread, and in the next daily plan once a day is read after a refusal', async () => {
  const property = `sc-domain:${host}`;
  await connectSearchConsole(deps(), siteId, { property }, NOW);
  expect(sent).toHaveLength(56);
  await importAll(sent.splice(0));
  expect((await searchConsoleView(deps(), siteId)).status).toBe('failed');
  expect(await t.store.searchDays.range(siteId, '2026-01-01', '2026-12-31')).toEqual([]);

  // The owner adds the account, then PUTs the same property again: the 56 days are asked again.
  google.userAdded = true;
  await connectSearchConsole(deps(), siteId, { property }, NOW);
  const backfill = sent.splice(0);
  expect(backfill.map((m) => m.date)).toHaveLength(56);
  // One read after the refusal marks the connection (a worker never sends to its own queue): the next
  // daily plan queues the backfill, a PUT not made, and takes the mark off.
  await importAll(backfill.slice(0, 1));
  expect(sent).toEqual([]);
  expect((await searchConsoleView(deps(), siteId)).status).toBe('connected');
  const marked = await t.store.searchConsole.get(siteId);
  expect(marked?.backfill_due).toBe(true);
  const planDays = ['2026-10-29', '2026-10-28', '2026-10-27'];
  await queueSearchDays(deps(), given(marked, 'the connection'), planDays, NOW);
  expect(sent.map((m) => m.date)).toEqual(backfill.map((m) => m.date));
  expect((await t.store.searchConsole.get(siteId))?.backfill_due).toBeUndefined();
  await importAll(sent.splice(0));
  // Unmarked, the plan's next day asks its three days only.
  await queueSearchDays(deps(), given(await t.store.searchConsole.get(siteId), 'the connection'), planDays, NOW);
  expect(sent.splice(0).map((m) => m.date)).toEqual(planDays);
  // The site has no pages, so no rows: the two days newer than five back are not ready, the rest final.
  const stored = await t.store.searchDays.range(siteId, '2026-01-01', '2026-12-31');
  expect(stored.map((day) => day.date)).toEqual(backfill.slice(0, 54).map((m) => m.date));
  // Read and connected: the same property again queues nothing, nor does a further import.
  await connectSearchConsole(deps(), siteId, { property }, NOW);
  await importAll(backfill.slice(1, 2));
  expect(sent).toEqual([]);
});

it('reads the cm_pages rows only for the sandbox, which derives its rows from their keywords', async () => {
  const select = jest.spyOn(t.store.rows, 'select');
  for (const [readsKeywords, date] of [
    [false, '2025-01-01'],
    [true, '2025-01-02'],
  ] as const) {
    const provider: SearchConsoleProvider = {
      name: 'google-search-console',
      serviceAccount: ACCOUNT,
      readsKeywords,
      dayRows: async () => ({ totals: [], pages: [], queries: [], calls: 1 }),
    };
    const deps = { store: t.store, searchConsole: provider, meter: new Meter(), now: NOW };
    expect(await importSearchDay(deps, { site_id: siteId, date, state: 'final' })).toBe('stored');
    expect(select.mock.calls.filter(([, table]) => table === 'cm_pages')).toHaveLength(readsKeywords ? 1 : 0);
  }
  select.mockRestore();
});

describe('the property', () => {
  const refusal = (siteOf: number, property: string) =>
    connectSearchConsole(deps(), siteOf, { property }, NOW).then(
      () => null,
      (error: unknown) => error,
    );

  it('is refused for a site not served at its own domain, and the domain it was made with is not its own', async () => {
    const unserved = await t.newSite('Unserved', { domain: 'unserved.example.com' });
    const error = await refusal(unserved.siteId, 'sc-domain:unserved.example.com');
    expect(error).toMatchObject({ code: 'validation_failed', status: 400 });
    expect((error as ApiError).message).toContain('not served at its own domain');
    expect(await t.store.searchConsole.get(unserved.siteId)).toBeNull();
  });

  it('is of the host the site is served at, stored canonical; the bare name of a www. host unless another site is served there', async () => {
    const site = await t.newSite('Served elsewhere', { domain: 'made-with.example.com' });
    expect(await t.store.sites.serveDomain(site.siteId, 'www.served-at.example.com')).toBe('served');
    const error = await refusal(site.siteId, 'sc-domain:made-with.example.com');
    expect((error as ApiError).message).toContain(
      'sc-domain:www.served-at.example.com or https://www.served-at.example.com/',
    );
    expect(await refusal(site.siteId, 'sc-domain:example.com')).toMatchObject({ code: 'validation_failed' });
    for (const [property, canonical] of [
      ['https://WWW.Served-At.example.com/', 'https://www.served-at.example.com/'],
      ['sc-domain:Served-At.example.com', 'sc-domain:served-at.example.com'],
    ] as const) {
      const view = await connectSearchConsole(deps(), site.siteId, { property }, NOW);
      expect(view.property).toBe(canonical);
      expect((await t.store.searchConsole.get(site.siteId))?.property).toBe(canonical);
    }
    const bare = await t.newSite('Bare name', { domain: 'served-at.example.com' });
    expect(await t.store.sites.serveDomain(bare.siteId, 'served-at.example.com')).toBe('served');
    expect(await refusal(site.siteId, 'sc-domain:served-at.example.com')).toMatchObject({ code: 'validation_failed' });
    expect(
      (await connectSearchConsole(deps(), bare.siteId, { property: 'sc-domain:served-at.example.com' }, NOW)).property,
    ).toBe('sc-domain:served-at.example.com');
  });
});
