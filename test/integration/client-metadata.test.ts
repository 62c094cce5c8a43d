import { fetchClientMetadataDocument } from '@cm/providers/client-metadata';
import { UrlRefused } from '@cm/providers';
import { nameOf, REFUSED_ADDRESSES, REFUSED_URLS, SSRF_DNS } from '../helpers/ssrf-matrix';
import { startTlsSite, TEST_CA, type TlsSite } from '../helpers/tls-site';

/*
 * OAuth clients' metadata documents are fetched through url research's address policy: every URL of
 * the SSRF matrix is refused before any connection, a redirect is not followed, and the setting for
 * local development allows loopback addresses and nothing else besides public ones.
 */

const DNS: Record<string, string[]> = { ...SSRF_DNS, 'public.test': ['127.0.0.3'] };
const resolve = async (host: string) => DNS[host] ?? [];

let site: TlsSite;

beforeAll(async () => {
  site = await startTlsSite('127.0.0.3', (req, res) => {
    if (req.url === '/moved') res.writeHead(302, { location: 'https://169.254.169.254/' }).end();
    else if (req.url === '/large') res.writeHead(200, { 'content-type': 'application/json' }).end('x'.repeat(10_000));
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"client_id":"x"}');
  });
});
afterAll(() => site.close());

/** Without `allowLoopback` the document is fetched as in production: the setting is off by default. */
const fetchDoc = (url: string, allowLoopback?: true) =>
  fetchClientMetadataDocument(url, { resolve, ca: TEST_CA, ...(allowLoopback ? { allowLoopback } : {}) });

it('refuses every URL of the SSRF matrix before any connection, with or without the loopback setting', async () => {
  const targets = [
    ...REFUSED_URLS.map((entry) => entry.url),
    ...REFUSED_ADDRESSES.map((_entry, i) => `https://${nameOf(i)}/client.json`),
  ];
  site.connections = 0;
  for (const url of targets) await expect(fetchDoc(url)).rejects.toBeInstanceOf(UrlRefused);
  // Loopback allowed for development: private, link-local, metadata and the rest stay refused.
  const notLoopback = REFUSED_ADDRESSES.map((entry, i) => ({ entry, url: `https://${nameOf(i)}/client.json` })).filter(
    ({ entry }) => entry.range !== 'loopback',
  );
  for (const { url } of notLoopback) await expect(fetchDoc(url, true)).rejects.toBeInstanceOf(UrlRefused);
  await expect(fetchDoc('http://public.test/client.json', true)).rejects.toBeInstanceOf(UrlRefused);
  expect(site.connections).toBe(0);
});

it('fetches a loopback document only with the setting, follows no redirect and reads no large body', async () => {
  const at = (path: string) => `https://public.test:${site.port}${path}`;
  await expect(fetchDoc(at('/client.json'))).rejects.toBeInstanceOf(UrlRefused);
  const document = await fetchDoc(at('/client.json'), true);
  expect(document.status).toBe(200);
  expect(await document.json()).toEqual({ client_id: 'x' });
  const moved = await fetchDoc(at('/moved'), true);
  expect(moved.status).toBe(302);
  await expect(fetchDoc(at('/large'), true)).rejects.toBeInstanceOf(UrlRefused);
});
