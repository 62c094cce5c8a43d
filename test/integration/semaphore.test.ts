import { useTestStack } from '../helpers/local';

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
  expect(await slots.free(owners[0]!)).toBe(false); // freeing twice frees nothing more
  expect(await expectConsistent()).toEqual({ inflight: 0, leases: {} });
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
  expect(await expectConsistent()).toEqual({ inflight: 0, leases: {} });
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
  expect(await expectConsistent()).toEqual({ inflight: 0, leases: {} });
});

it('renew extends a live lease in place, and takes a new place only for an owner that lost its lease and only below the cap', async () => {
  const slots = t.store.researchSlots;
  const now = Date.now();
  expect((await slots.take('worker', now + 1_000, now)).taken).toBe(true);
  expect(await slots.renew('worker', now + LEASE_MS, now)).toBe(true);
  let state = await expectConsistent();
  expect(state).toEqual({ inflight: 1, leases: { worker: now + LEASE_MS } }); // extended, not counted twice

  // An owner without a lease (an analyze job, or one whose lease was revoked) takes a free place...
  expect(await slots.renew('waiting', now + LEASE_MS, now)).toBe(true);
  for (let i = 0; i < 8; i++) await slots.take(`full-${i}`, now + LEASE_MS, now);
  // ...but none above the cap: it waits.
  expect(await slots.renew('late', now + LEASE_MS, now)).toBe(false);
  state = await expectConsistent();
  expect(state.inflight).toBe(10);
  expect(state.leases.late).toBeUndefined();
  await Promise.all(Object.keys(state.leases).map((h) => slots.free(h)));
  expect(await expectConsistent()).toEqual({ inflight: 0, leases: {} });
});
