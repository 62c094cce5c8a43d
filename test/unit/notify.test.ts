import { isStaleNotify, liveChanged, notifiedState, notifyTime, type LiveState } from '@cm/core';

const published: LiveState = { status: 'published', deleted: false };
const draft: LiveState = { status: 'draft', deleted: false };
const deleted: LiveState = { status: 'draft', deleted: true };

describe('notify state (spec §3)', () => {
  it('takes a published page down on unpublished or deleted without status; deleted is remembered', () => {
    expect(notifiedState(published, { action: 'unpublished' })).toEqual(draft);
    expect(notifiedState(published, { action: 'deleted' })).toEqual(deleted);
    expect(liveChanged(published, draft)).toBe(true);
    expect(liveChanged(published, deleted)).toBe(true);
  });

  it('leaves the state as it is with neither status nor action, and on edited', () => {
    for (const state of [published, draft, deleted]) {
      expect(notifiedState(state, {})).toEqual(state);
      expect(notifiedState(state, { action: 'edited' })).toEqual(state);
    }
  });

  it('adopts status when present: it outranks action', () => {
    expect(notifiedState(draft, { status: 'published', action: 'unpublished' })).toEqual(published);
    expect(notifiedState(published, { status: 'published', action: 'deleted' })).toEqual(published);
    expect(notifiedState(published, { status: 'draft', action: 'published' })).toEqual(draft);
    expect(notifiedState(deleted, { status: 'published' })).toEqual(published);
    expect(notifiedState(deleted, { status: 'draft' })).toEqual(draft);
    expect(notifiedState(published, { status: 'draft', action: 'deleted' })).toEqual(deleted);
  });

  it('publishes on action published without status, bringing a deleted page back', () => {
    expect(notifiedState(draft, { action: 'published' })).toEqual(published);
    expect(notifiedState(deleted, { action: 'published' })).toEqual(published);
  });

  it('queues relink exactly when the live state changed', () => {
    expect(liveChanged(published, published)).toBe(false);
    expect(liveChanged(draft, deleted)).toBe(false);
    expect(liveChanged(draft, published)).toBe(true);
  });

  const RECEIVED = '2026-06-01T00:00:00.000Z';

  it('ignores a delivery older than the newest applied one, not a repeat or a newer one', () => {
    expect(isStaleNotify(null, '2026-01-01T00:00:00.000Z', RECEIVED)).toBe(false);
    expect(isStaleNotify('2026-01-02T00:00:00.000Z', '2026-01-01T00:00:00.000Z', RECEIVED)).toBe(true);
    expect(isStaleNotify('2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z', RECEIVED)).toBe(false);
    expect(isStaleNotify('2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z', RECEIVED)).toBe(false);
  });

  it('counts a date later than the receipt as the receipt, so no date can freeze a page', () => {
    expect(notifyTime('2030-01-01T00:00:00.000Z', RECEIVED)).toBe(RECEIVED);
    expect(notifyTime('9999-12-31T23:59:59.999Z', RECEIVED)).toBe(RECEIVED);
    expect(notifyTime('2026-01-01T00:00:00.000Z', RECEIVED)).toBe('2026-01-01T00:00:00.000Z');
    expect(notifyTime(undefined, RECEIVED)).toBe(RECEIVED);
    // A newest-applied date stored in the future (before this rule) no longer outranks a delivery made now.
    expect(isStaleNotify('2030-01-01T00:00:00.000Z', RECEIVED, RECEIVED)).toBe(false);
    expect(isStaleNotify('2030-01-01T00:00:00.000Z', '2026-05-31T00:00:00.000Z', RECEIVED)).toBe(true);
    // Times compare as instants, not as text.
    expect(notifyTime('2026-05-31T23:00:00-02:00', RECEIVED)).toBe(RECEIVED);
  });
});
