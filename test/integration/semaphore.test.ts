import { useTestStack } from '../helpers/local';
import { given } from '../helpers/client';

/* The global cap of research in flight: one DynamoDB item with the count and each owner's lease. */

const t = useTestStack();

const LEASE_MS = 60_000;

/** The count never drifts from the number of live leases. */
async function expectConsistent() {
  const state = await t.store.researchSlots.state();
  expect(state.inflight).toBe(Object.keys(state.leases).length);
  return state;
}

it('lets exactly 10 of 100 concurrent callers take a place, and all 10 are free again after', async () => {
  const slots = t.store.researchSlots;
  const now = Date.now();
  const outcomes = await Promise.all(
    Array.from({ length: 100 }, (_v, i) => slots.take(`job-${i}`, now + LEASE_MS, now)),
  );
  const owners = outcomes.flatMap((o, i) => (o.taken ? [`job-${i}`] : []));
  expect(owners).toHaveLength(10);
  expect(outcomes.filter((o) => !o.taken)).toHaveLength(90);
  expect((await expectConsistent()).inflight).toBe(10);

  expect(await Promise.all(owners.map((h) => slots.free(h)))).toEqual(Array(10).fill(true));
  expect(await slots.free(given(owners[0], 'the owners[0]'))).toBe(false); // freeing twice frees nothing more
  expect(await expectConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
});

it("revokes a dead owner's lease once it expires, and the dead owner's late free takes nothing from the new owner", async () => {
  const slots = t.store.researchSlots;
  const now = Date.now();
  // Ten owners; one of them ("dead") has a worker that dies and never frees its place.
  for (let i = 0; i < 9; i++) expect((await slots.take(`live-${i}`, now + LEASE_MS, now)).taken).toBe(true);
  expect((await slots.take('dead', now + 1_000, now)).taken).toBe(true);
  expect((await slots.take('early', now + LEASE_MS, now)).taken).toBe(false); // full, the dead lease has not expired

  const later = now + 2_000;
  expect((await slots.take('next', later + LEASE_MS, later)).taken).toBe(true); // the expired lease was revoked
  let state = await expectConsistent();
  expect(state.inflight).toBe(10);
  expect(state.leases.dead).toBeUndefined();
  expect(state.leases.next).toBe(later + LEASE_MS);

  expect(await slots.free('dead')).toBe(false); // the dead owner's late free
  state = await expectConsistent();
  expect(state.inflight).toBe(10);
  expect(state.leases.next).toBe(later + LEASE_MS);

  for (const owner of [...Array.from({ length: 9 }, (_v, i) => `live-${i}`), 'next']) await slots.free(owner);
  expect(await expectConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
});

it('keeps count and leases equal under concurrent takes, frees and revokes', async () => {
  const slots = t.store.researchSlots;
  const now = Date.now();
  await Promise.all(Array.from({ length: 5 }, (_v, i) => slots.take(`stale-${i}`, now - 1, now - 10_000)));
  const takes = await Promise.all(Array.from({ length: 40 }, (_v, i) => slots.take(`racer-${i}`, now + LEASE_MS, now)));
  expect(takes.filter((o) => o.taken)).toHaveLength(10);
  const state = await expectConsistent();
  expect(Object.keys(state.leases).every((h) => h.startsWith('racer-'))).toBe(true);
  await Promise.all([...Object.keys(state.leases), 'stale-0', 'racer-none'].map((h) => slots.free(h)));
  expect(await expectConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
});

it('renew extends a live lease in place, and takes a new place only for an owner that lost its lease and only below the cap', async () => {
  const slots = t.store.researchSlots;
  const now = Date.now();
  expect((await slots.take('worker', now + 1_000, now)).taken).toBe(true);
  expect(await slots.renew('worker', now + LEASE_MS, now)).toBe(true);
  let state = await expectConsistent();
  expect(state).toEqual({ inflight: 1, leases: { worker: now + LEASE_MS }, groups: {} }); // extended, not counted twice

  // An owner without a lease (an analyze job, or one whose lease was revoked) takes a free place...
  expect(await slots.renew('waiting', now + LEASE_MS, now)).toBe(true);
  for (let i = 0; i < 8; i++) await slots.take(`full-${i}`, now + LEASE_MS, now);
  // ...but none above the cap: it waits.
  expect(await slots.renew('late', now + LEASE_MS, now)).toBe(false);
  state = await expectConsistent();
  expect(state.inflight).toBe(10);
  expect(state.leases.late).toBeUndefined();
  await Promise.all(Object.keys(state.leases).map((h) => slots.free(h)));
  expect(await expectConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
});

describe("a group's share of the cap", () => {
  /** The research cap's share: each site holds at most this many of the 10 places. */
  const SHARE = 5;

  /** Count, leases and groups agree: every group's owner holds a lease, and no group holds more than its share. */
  async function expectGroupsConsistent() {
    const state = await expectConsistent();
    const grouped = Object.values(state.groups).flat();
    for (const owner of grouped) expect(state.leases[owner]).toBeDefined();
    for (const owners of Object.values(state.groups)) expect(owners.length).toBeLessThanOrEqual(SHARE);
    return state;
  }

  it('gives one group of 100 concurrent callers its share and no more, and leaves the rest of the cap to the others', async () => {
    const slots = t.store.researchSlots;
    const now = Date.now();
    const flood = await Promise.all(
      Array.from({ length: 100 }, (_v, i) => slots.take(`flood-${i}`, now + LEASE_MS, now, undefined, 'flooder')),
    );
    expect(flood.filter((o) => o.taken)).toHaveLength(SHARE);
    expect(flood.filter((o) => !o.taken).map((o) => o.refused)).toEqual(Array(100 - SHARE).fill('share'));
    // Another group is let in at once, up to the cap; past it every group is refused for the cap.
    const others = await Promise.all(
      Array.from({ length: 20 }, (_v, i) => slots.take(`other-${i}`, now + LEASE_MS, now, undefined, `site-${i % 4}`)),
    );
    expect(others.filter((o) => o.taken)).toHaveLength(10 - SHARE);
    expect(others.filter((o) => !o.taken).every((o) => o.refused === 'cap')).toBe(true);
    const state = await expectGroupsConsistent();
    expect(state.inflight).toBe(10);
    expect(state.groups.flooder).toHaveLength(SHARE);

    // Freed with or without its group named, a place leaves its group; an empty group is gone.
    const held = Object.entries(state.groups).flatMap(([group, owners]) => owners.map((owner) => [owner, group]));
    await Promise.all(
      held.map(([owner, group], i) => slots.free(given(owner, 'the owner'), i % 2 ? group : undefined)),
    );
    expect(await expectGroupsConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
  });

  it("revokes a group's expired leases for its next taker, so a dead worker does not keep its site's share", async () => {
    const slots = t.store.researchSlots;
    const now = Date.now();
    for (let i = 0; i < SHARE; i++)
      expect((await slots.take(`dead-${i}`, now + 1_000, now, undefined, 'site')).taken).toBe(true);
    expect(await slots.take('early', now + LEASE_MS, now, undefined, 'site')).toEqual({
      taken: false,
      inflight: SHARE,
      refused: 'share',
    });
    const later = now + 2_000;
    expect((await slots.take('next', later + LEASE_MS, later, undefined, 'site')).taken).toBe(true);
    let state = await expectGroupsConsistent();
    expect(state).toEqual({ inflight: 1, leases: { next: later + LEASE_MS }, groups: { site: ['next'] } });
    // A dead owner's late free, named with its group, takes nothing.
    expect(await slots.free('dead-0', 'site')).toBe(false);
    expect(await slots.revoke('next', later + LEASE_MS + 1, 'site')).toBe(false); // not its lease's end: kept
    expect(await slots.renew('next', later + 2 * LEASE_MS, later, 'site')).toBe(true);
    state = await expectGroupsConsistent();
    expect(state.groups).toEqual({ site: ['next'] }); // extended in place, not counted twice
    expect(await slots.revoke('next', later + 2 * LEASE_MS, 'site')).toBe(true);
    expect(await expectGroupsConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
  });

  it("says why a take is refused: the share when its last read found the group full, even after rounds lost to others' renewals; held when the owner has its place", async () => {
    const slots = t.store.researchSlots;
    const now = Date.now();
    for (let i = 0; i < SHARE; i++)
      expect((await slots.take(`busy-${i}`, now + LEASE_MS, now, undefined, 'site')).taken).toBe(true);
    // Each round finds a lease to revoke, but its owner renews it first: every round is lost to another's progress.
    let renewals = 0;
    const renewedMeanwhile = async (owner: string, expiry: number) => {
      if (owner !== 'busy-0') return false;
      renewals++;
      return slots.renew(owner, expiry + 1, now, 'site');
    };
    expect(await slots.take('late', now + LEASE_MS, now, renewedMeanwhile, 'site')).toEqual({
      taken: false,
      inflight: SHARE,
      refused: 'share',
    });
    expect(renewals).toBe(5);
    expect((await slots.take('other', now + LEASE_MS, now, undefined, 'another')).taken).toBe(true);
    // A second take for the same owner (two admitters of one job): refused at once, its place kept.
    expect(await slots.take('other', now + LEASE_MS, now, undefined, 'another')).toEqual({
      taken: false,
      inflight: SHARE + 1,
      refused: 'held',
    });
    const state = await expectGroupsConsistent();
    expect(state.groups).toEqual({ site: expect.any(Array), another: ['other'] });
    await Promise.all(Object.keys(state.leases).map((owner) => slots.free(owner)));
    expect(await expectGroupsConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
  });

  it('frees a lease taken before groups (no group) by its owner alone, even named with a group, leaving the groups as they are', async () => {
    const slots = t.store.researchSlots;
    const now = Date.now();
    expect((await slots.take('before-shares', now + LEASE_MS, now)).taken).toBe(true);
    expect((await slots.take('grouped', now + LEASE_MS, now, undefined, 'site')).taken).toBe(true);
    // Its owner frees it as it frees any: named with the site's group (the lease has none) ...
    expect(await slots.free('before-shares', 'site')).toBe(true);
    expect(await slots.free('before-shares')).toBe(false); // ... once
    expect(await expectGroupsConsistent()).toEqual({
      inflight: 1,
      leases: { grouped: now + LEASE_MS },
      groups: { site: ['grouped'] },
    });
    expect(await slots.free('grouped')).toBe(true);
    expect(await expectGroupsConsistent()).toEqual({ inflight: 0, leases: {}, groups: {} });
  });
});
