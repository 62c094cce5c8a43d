import { useTestStack } from '../helpers/local';

/* Confirm tokens in the store (docs/api.md#estimates-and-approval): one use under concurrency, and why a use is refused. */

const t = useTestStack();

const grant = (expiresMs = Date.now() + 60_000) => ({
  tool: 'serp_keyword_refresh',
  inputHash: 'input-a',
  approvedUsd: 0.0035,
  expiresMs,
});

it('lets exactly one of 20 concurrent uses of a token through, and answers the estimate it approved', async () => {
  const { siteId } = await t.newSite('Concurrent tokens');
  await t.store.confirms.put(siteId, 'hash-1', grant());
  const outcomes = await Promise.all(
    Array.from({ length: 20 }, () =>
      t.store.confirms.use(siteId, 'hash-1', 'serp_keyword_refresh', 'input-a', Date.now()),
    ),
  );
  expect(outcomes.filter((o) => o.used)).toEqual([{ used: true, approvedUsd: 0.0035 }]);
  expect(outcomes.filter((o) => !o.used)).toHaveLength(19);
  expect(new Set(outcomes.flatMap((o) => (o.used ? [] : [o.refusal])))).toEqual(new Set(['used']));
});

it('refuses another tool, another input, an expired token, an unknown one and another site, leaving a refused token usable', async () => {
  const { siteId } = await t.newSite('Refusals');
  const other = await t.newSite('Another site');
  const now = Date.now();
  await t.store.confirms.put(siteId, 'hash-2', grant());
  const use = (tool: string, input: string, at = now, site = siteId, hash = 'hash-2') =>
    t.store.confirms.use(site, hash, tool, input, at);
  expect(await use('get_keywords', 'input-a')).toEqual({ used: false, refusal: 'other_tool' });
  expect(await use('serp_keyword_refresh', 'input-b')).toEqual({ used: false, refusal: 'other_input' });
  expect(await use('serp_keyword_refresh', 'input-a', now + 61_000)).toEqual({ used: false, refusal: 'expired' });
  expect(await use('serp_keyword_refresh', 'input-a', now, siteId, 'hash-x')).toEqual({
    used: false,
    refusal: 'unknown',
  });
  expect(await use('serp_keyword_refresh', 'input-a', now, other.siteId)).toEqual({ used: false, refusal: 'unknown' });
  expect(await use('serp_keyword_refresh', 'input-a')).toEqual({ used: true, approvedUsd: 0.0035 });
  expect(await use('serp_keyword_refresh', 'input-a')).toEqual({ used: false, refusal: 'used' });
});

it('never stores a token twice under one hash', async () => {
  const { siteId } = await t.newSite('Twice');
  await t.store.confirms.put(siteId, 'hash-3', grant());
  await expect(t.store.confirms.put(siteId, 'hash-3', grant())).rejects.toThrow();
});
