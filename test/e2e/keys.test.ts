import { forgetKeyLookups, KEY_CACHE_MS } from '@cm/runtime';
import { SiteStore } from '@cm/store';
import { useTestStack } from '../helpers/local';
import { given } from '../helpers/client';
import { fakeClock } from '../helpers/clock';

/*
 * A revoked key stops working within seconds on a warm container, a rotation's grace period is kept to,
 * and a burst of a key's requests looks it up once.
 */

const t = useTestStack();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const statusWith = async (key: string) => (await t.call('GET', '/articles', undefined, { key })).status;

it('refuses a revoked key (401) once the container’s key cache lets go of it, well within 10 s', async () => {
  expect(KEY_CACHE_MS).toBeLessThan(10_000);
  const { key } = await t.newSite('Revoked', { domain: 'revoked.example.com' });
  // Used once, so the container has it cached.
  expect(await statusWith(key)).toBe(200);
  expect(await t.store.sites.revokeKey(key)).not.toBeNull();
  await sleep(KEY_CACHE_MS + 250);
  const refused = await t.call('GET', '/articles', undefined, { key });
  expect(refused.status).toBe(401);
  expect(refused.body.code).toBe('unauthorized');
});

it('keeps a rotated-out key working through its grace period, and no longer', async () => {
  const { siteId, key: old } = await t.newSite('Rotated', { domain: 'rotated.example.com' });
  // Shorter than the key cache, so the cache is seen to keep the key no longer than its grace.
  const graceSeconds = 3;
  const fresh = await t.store.sites.rotateKeys(siteId, graceSeconds);
  expect(fresh).not.toBeNull();
  expect(await statusWith(given(fresh, 'the fresh'))).toBe(200);
  // First seen in its grace period: it works, and the container keeps it no longer than the grace lasts.
  expect(await statusWith(old)).toBe(200);
  expect(graceSeconds * 1000).toBeLessThan(KEY_CACHE_MS);
  await sleep(graceSeconds * 1000 + 250);
  expect(await statusWith(old)).toBe(401);
  expect(await statusWith(given(fresh, 'the fresh'))).toBe(200);
});

it('looks a key up once for a burst of its requests that arrive before the first lookup ends', async () => {
  const { key } = await t.newSite('Burst', { domain: 'burst.example.com' });
  forgetKeyLookups();
  // The clock held: the one lookup is kept for the whole burst however slow the machine.
  fakeClock(Date.now());
  const lookups = jest.spyOn(SiteStore.prototype, 'lookupKey');
  try {
    const statuses = await Promise.all(Array.from({ length: 20 }, () => statusWith(key)));
    expect(statuses).toEqual(Array(20).fill(200));
    expect(lookups).toHaveBeenCalledTimes(1);
  } finally {
    lookups.mockRestore();
    jest.useRealTimers();
  }
});
