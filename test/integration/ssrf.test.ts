import { ApiError } from '@cm/contract';
import { isPublicAddress } from '@cm/core';
import { ensureTable, startDynamo, type EmbeddedDynamo } from '@cm/local';
import { Meter, UrlRefused } from '@cm/providers';
import { WebResearch, type WebResearchParts } from '@cm/providers/web';
import { createDocumentClient, createStore, type Store } from '@cm/store';
import { research, runResearchJob, type SiteBudget, type ToolContext } from '@cm/tools';
import { matrixFigure, nameOf, REFUSED_ADDRESSES, REFUSED_URLS, SSRF_DNS } from '../helpers/ssrf-matrix';
import { startTlsSite, TEST_CA, type TlsSite } from '../helpers/tls-site';

/*
 * url research over the SSRF matrix (test/helpers/ssrf-matrix.ts): refused at the call with
 * `400 validation_failed`, and by the worker's fetch, redirects included, with `url_refused`, and in
 * both cases before any connection to what is refused.
 */

/**
 * The stand-in for a public server listens on 127.0.0.3, the one address the fetch may connect to
 * besides public ones: every spelling of 127.0.0.1 in the matrix stays refused.
 */
const SERVER_ADDRESS = '127.0.0.3';
const DNS: Record<string, string[]> = { ...SSRF_DNS, 'public.test': [SERVER_ADDRESS] };

/** Every URL of the matrix: the URL forms, and a name resolving to each refused address. */
const TARGETS = [
  ...REFUSED_URLS.map((entry) => entry.url),
  ...REFUSED_ADDRESSES.map((_entry, i) => `https://${nameOf(i)}/page`),
];

let site: TlsSite;
let requests: string[];
let lookups: string[];

beforeAll(async () => {
  site = await startTlsSite(SERVER_ADDRESS, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://public.test');
    requests.push(url.pathname);
    const hops = /^\/hop\/(\d+)$/.exec(url.pathname);
    // A header is ASCII: a host in other characters (full-width digits) is sent percent-encoded, which URL parsing reads back.
    const to = (url.searchParams.get('to') ?? '').replace(/[^ -~]+/g, encodeURIComponent);
    if (url.pathname === '/redirect') res.writeHead(302, { location: to }).end();
    else if (hops && Number(hops[1]) > 1)
      res.writeHead(307, { location: `/hop/${Number(hops[1]) - 1}?to=${encodeURIComponent(to)}` }).end();
    else if (hops) res.writeHead(301, { location: to }).end();
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('a public page');
  });
});

afterAll(() => site.close());

beforeEach(() => {
  site.connections = 0;
  requests = [];
  lookups = [];
});

const resolve = async (host: string) => {
  lookups.push(host);
  return DNS[host] ?? [];
};

/** Anything a refusal must come before: touching it fails the test. */
function untouchable<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get: (_target, prop) => {
      throw new Error(`${what}.${String(prop)} was used`);
    },
  });
}

describe('url research at the call', () => {
  const ctx = (): ToolContext => ({
    siteId: 1,
    store: untouchable('store'),
    keywordData: untouchable('keywordData'),
    backlinkData: untouchable('backlinkData'),
    meter: new Meter(),
    now: new Date(),
    researchSource: 'tavily+bedrock',
    researchLeaseMs: 300_000,
    resolveHost: resolve,
    enqueue: () => Promise.reject(new Error('enqueued')),
    measure: () => undefined,
    budget: untouchable('budget'),
    queuedPriceUsd: () => 0,
  });

  /** The error of a url research of `url`, which must be refused. */
  async function refusal(url: string): Promise<ApiError> {
    const error = await research(ctx(), { mode: 'url', seed: url, wait_ms: 0 }).then(
      () => new Error(`${url} was accepted`),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }

  it('refuses every URL of the matrix with 400 validation_failed on seed, before any place is taken or job queued', async () => {
    let refused = 0;
    for (const url of TARGETS) {
      const error = await refusal(url);
      expect({ url, status: error.status, code: error.code }).toEqual({ url, status: 400, code: 'validation_failed' });
      expect(error.extra.issues).toEqual([
        { path: 'seed', message: expect.stringMatching(/; url mode fetches public addresses only$/) },
      ]);
      refused++;
    }
    console.log(matrixFigure(refused, TARGETS.length, 'url research URLs at the call'));
    // Literals and private names are refused before any lookup; names after theirs.
    expect(lookups).toEqual(REFUSED_ADDRESSES.map((_entry, i) => nameOf(i)));
    expect(site.connections).toBe(0);
  });
});

describe("url research's fetch", () => {
  /** Web research as the worker runs it, fetching through the stand-in; search and synthesis must never run. */
  const webResearch = (fetch: WebResearchParts['fetch']) =>
    new WebResearch({
      search: untouchable('search'),
      synthesis: untouchable('synthesis'),
      fetch: { ca: TEST_CA, port: site.port, resolve, timeoutMs: 5000, ...fetch },
    });
  const standIn = { isAllowed: (address: string) => address === SERVER_ADDRESS || isPublicAddress(address) };

  async function expectRefused(provider: WebResearch, url: string): Promise<UrlRefused> {
    const error = await provider.research({ mode: 'url', query: url, question: null }, new Meter()).then(
      () => new Error(`${url} was fetched`),
      (e: unknown) => e,
    );
    expect({ url, refused: error instanceof UrlRefused }).toEqual({ url, refused: true });
    return error as UrlRefused;
  }

  it('refuses every URL of the matrix under the default address policy, before connecting', async () => {
    const provider = webResearch({});
    for (const url of TARGETS) await expectRefused(provider, url);
    console.log(matrixFigure(TARGETS.length, TARGETS.length, 'URLs at the fetch'));
    expect(site.connections).toBe(0);
  });

  it('refuses a redirect to any URL of the matrix: the redirect is the last request, and nothing connects to its target', async () => {
    const provider = webResearch(standIn);
    // The stand-in server is reachable: a redirect to it is followed (and the page read, up to the synthesis).
    await expect(
      provider.research({ mode: 'url', query: 'https://public.test/redirect?to=/page', question: null }, new Meter()),
    ).rejects.toThrow('synthesis.synthesize was used');
    expect(requests).toEqual(['/redirect', '/page']);

    requests = [];
    site.connections = 0;
    for (const target of TARGETS)
      await expectRefused(provider, `https://public.test/redirect?to=${encodeURIComponent(target)}`);
    console.log(matrixFigure(TARGETS.length, TARGETS.length, 'redirect targets'));
    // One request and one connection per URL: the redirect; none to a refused target.
    expect(requests).toEqual(TARGETS.map(() => '/redirect'));
    expect(site.connections).toBe(TARGETS.length);
  });

  it('refuses a loopback at the end of a redirect chain, hop after hop checked', async () => {
    const provider = webResearch(standIn);
    for (const target of [
      'https://[::1]/',
      'https://2130706433/',
      `https://${nameOf(REFUSED_ADDRESSES.findIndex((e) => e.address === '2002:7f00:1::1'))}/`,
    ]) {
      requests = [];
      const error = await expectRefused(provider, `https://public.test/hop/3?to=${encodeURIComponent(target)}`);
      expect(error.reason).toMatch(/not a public address/);
      expect(requests).toEqual(['/hop/3', '/hop/2', '/hop/1']);
    }
  });
});

describe('a url research job whose URL redirects to loopback', () => {
  let dynamo: EmbeddedDynamo;
  let store: Store;
  beforeAll(async () => {
    dynamo = await startDynamo({ port: 0 });
    await ensureTable(dynamo.endpoint, 'ssrf-test');
    store = createStore(createDocumentClient({ endpoint: dynamo.endpoint }), 'ssrf-test');
  }, 30_000);
  afterAll(() => dynamo.close());

  it('ends failed with url_refused, its place freed, after the redirect and before any connection to loopback', async () => {
    const url = `https://public.test/hop/2?to=${encodeURIComponent('https://0x7f.0.0.1/admin')}`;
    const jobId = 'job_ssrf_redirect';
    await store.jobs.create({
      job_id: jobId,
      site_id: 1,
      tool: 'research',
      input: { mode: 'url', query: url, question: null, page_id: null },
      created_at: new Date().toISOString(),
    });
    const provider = new WebResearch({
      search: untouchable('search'),
      synthesis: untouchable('synthesis'),
      fetch: {
        ca: TEST_CA,
        port: site.port,
        resolve,
        isAllowed: (address) => address === SERVER_ADDRESS || isPublicAddress(address),
      },
    });
    const deps = {
      store,
      research: provider,
      meter: new Meter(),
      enqueue: () => Promise.reject(new Error('enqueued')),
      researchLeaseMs: 300_000,
      budgetOf: () => untouchable<SiteBudget>('budget'),
    };

    expect(await runResearchJob(deps, { job_id: jobId })).toEqual({ siteId: 1, tool: 'research' });

    expect(await store.jobs.get(jobId)).toMatchObject({
      status: 'failed',
      // The URL parser reads 0x7f.0.0.1 as 127.0.0.1.
      error: { code: 'url_refused', message: '127.0.0.1 is not a public address' },
    });
    expect(requests).toEqual(['/hop/2', '/hop/1']);
    expect(site.connections).toBe(2);
    expect(await store.researchSlots.state()).toMatchObject({ inflight: 0 });
  });
});
