import { RATE_RULES } from '@cm/contract';
import { article, siteClient, type Reply, startTestStack, type SiteClient, type TestStack } from '../helpers/local';

/*
 * The per-key and per-address rate rules WAF applies on AWS, as the local server emulates them from the
 * same definitions (RATE_RULES), with the paid tools' limit lowered to 3 a minute so a test reaches it.
 */

const PAID_LIMIT = 3;
const REGISTRATION_LIMIT = 2;
let t: TestStack;
let flooder: SiteClient;
let other: SiteClient;

beforeAll(async () => {
  t = await startTestStack({
    rateRules: RATE_RULES.map((rule) =>
      rule.name === 'paid-tools-per-key'
        ? { ...rule, limit: PAID_LIMIT }
        : rule.name === 'oauth-registrations-per-ip'
          ? { ...rule, limit: REGISTRATION_LIMIT }
          : rule,
    ),
  });
  [flooder, other] = [await siteClient(t, 'Flooder'), await siteClient(t, 'Neighbour')];
}, 60_000);
afterAll(() => t.stop());

const keywords = (client: SiteClient) => client.tool('get_keywords', { seeds: ['trail shoes'] });

it('answers 429 rate_limited with Retry-After to one key over its paid-tool limit, while another key is served', async () => {
  // A window may turn between calls: the limit is reached within at most two windows' worth of calls.
  let refused: Reply | null = null;
  for (let i = 0; i < 2 * PAID_LIMIT + 1 && !refused; i++) {
    const reply = await keywords(flooder);
    if (reply.status === 429) refused = reply;
    else expect(reply.status).toBe(200);
  }
  expect(refused).not.toBeNull();
  expect(refused?.body).toMatchObject({ error: 'rate_limited', code: 'rate_limited', retry_after_ms: 60_000 });
  expect(refused?.headers.get('retry-after')).toBe('60');

  expect((await keywords(other)).status).toBe(200);
  // The limit is per rule: the same key's publishes and reads are not counted by it.
  expect((await flooder.call('POST', '/articles', article('still-publishing'))).status).toBe(201);
});

it('keeps publish, notify and visitor pages served while another site floods a paid tool', async () => {
  const flood = Array.from({ length: 30 }, () => keywords(flooder));
  const published = await other.call('POST', '/articles', article('served-during-flood'));
  const notified = await other.call('POST', '/api/content/notify', { id: published.body.id, type: 'article' });
  const page = await t.call('GET', `/sites/${other.siteId}/articles/served-during-flood`, undefined, { key: null });
  const flooded = await Promise.all(flood);

  expect(published.status).toBe(201);
  expect(notified.status).toBe(200);
  expect(page.status).toBe(200);
  expect(flooded.filter((reply) => reply.status === 429).length).toBeGreaterThanOrEqual(30 - 2 * PAID_LIMIT);
  expect(flooded.every((reply) => reply.status === 200 || reply.status === 429)).toBe(true);
});

it("refuses a registration over its address's limit in OAuth's error shape too (RFC 7591 §3.2.2)", async () => {
  const register = () =>
    fetch(`${t.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' }),
    });
  // A window may turn between calls: the limit is reached within at most two windows' worth of calls.
  let refused: Response | null = null;
  for (let i = 0; i < 2 * REGISTRATION_LIMIT + 1 && !refused; i++) {
    const reply = await register();
    if (reply.status === 429) refused = reply;
    else expect(reply.status).toBe(201);
  }
  expect(refused?.headers.get('retry-after')).toBe('300');
  expect(await refused?.json()).toEqual({
    error: 'rate_limited',
    error_description: 'Too many requests for this key or address; try again in 300 s',
    code: 'rate_limited',
    message: 'Too many requests for this key or address; try again in 300 s',
    retry_after_ms: 300_000,
  });
});
