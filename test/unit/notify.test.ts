import { liveChanged, notifiedState, siteTime, type LiveState } from '@cm/core';

const published: LiveState = { status: 'published', deleted: false };
const draft: LiveState = { status: 'draft', deleted: false };
const deleted: LiveState = { status: 'draft', deleted: true };

describe('notify state (spec §3)', () => {
  it('takes a published page down on unpublished or deleted without status; deleted is remembered', () => {
    expect(notifiedState({ action: 'unpublished' })).toEqual(draft);
    expect(notifiedState({ action: 'deleted' })).toEqual(deleted);
    expect(liveChanged(published, draft)).toBe(true);
    expect(liveChanged(published, deleted)).toBe(true);
  });

  it('leaves the state as it is with neither status nor action, and on edited', () => {
    expect(notifiedState({})).toBeNull();
    expect(notifiedState({ action: 'edited' })).toBeNull();
  });

  it('adopts status when present: it outranks action', () => {
    expect(notifiedState({ status: 'published', action: 'unpublished' })).toEqual(published);
    expect(notifiedState({ status: 'published', action: 'deleted' })).toEqual(published);
    expect(notifiedState({ status: 'draft', action: 'published' })).toEqual(draft);
    expect(notifiedState({ status: 'published' })).toEqual(published);
    expect(notifiedState({ status: 'draft' })).toEqual(draft);
    expect(notifiedState({ status: 'draft', action: 'deleted' })).toEqual(deleted);
  });

  it('publishes on action published without status, bringing a deleted page back', () => {
    expect(notifiedState({ action: 'published' })).toEqual(published);
    expect(notifiedState({ action: 'published' })).toEqual(published);
  });

  it('queues relink exactly when the live state changed', () => {
    expect(liveChanged(published, published)).toBe(false);
    expect(liveChanged(draft, deleted)).toBe(false);
    expect(liveChanged(draft, published)).toBe(true);
  });

  const RECEIVED = '2026-06-01T00:00:00.000Z';

  it("takes the site's date, counting one later than the receipt as the receipt, and none as none", () => {
    expect(siteTime('2030-01-01T00:00:00.000Z', RECEIVED)).toBe(RECEIVED);
    expect(siteTime('9999-12-31T23:59:59.999Z', RECEIVED)).toBe(RECEIVED);
    expect(siteTime('2026-01-01T00:00:00.000Z', RECEIVED)).toBe('2026-01-01T00:00:00.000Z');
    expect(siteTime(undefined, RECEIVED)).toBeNull();
    expect(siteTime(null, RECEIVED)).toBeNull();
    expect(siteTime('2026-05-31T23:00:00-02:00', RECEIVED)).toBe(RECEIVED);
  });
});
