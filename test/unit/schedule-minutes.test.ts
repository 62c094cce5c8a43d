import { articleDoc, schedulePublish } from '@cm/core';
import { article } from '../helpers/local';

/*
 * A page's schedule is kept by the UTC minute its change is due in, and the sweep finishes a minute
 * once it has passed: a change due within the current minute is made at once, so no change is ever
 * kept for a minute the sweep may have finished already (docs/api/publishing.md#pages-on-a-schedule).
 */

const NOW = '2026-11-29T22:10:40.000Z';
const doc = articleDoc(article('minutes'), NOW);

test('publish_at within the current minute publishes now, with a warning; in the next minute it waits', () => {
  const soon = schedulePublish(doc, { publish_at: '2026-11-29T22:10:59.000Z' }, NOW);
  expect(soon.schedule).toBeNull();
  expect(soon.doc.status).toBe(doc.status);
  expect(soon.warnings).toEqual([{ path: 'publish_at', message: 'due within this minute; the page is published now' }]);
  const next = schedulePublish(doc, { publish_at: '2026-11-29T22:11:00.000Z' }, NOW);
  expect(next.schedule).toEqual({ publish_at: '2026-11-29T22:11:00.000Z', unpublish_at: null });
  expect([next.doc.status, next.warnings]).toEqual(['draft', []]);
});

test('unpublish_at within the current minute is refused: it would be kept for a minute the sweep may have finished', () => {
  expect(() => schedulePublish(doc, { unpublish_at: '2026-11-29T22:10:59.000Z' }, NOW)).toThrow(
    /in a later minute than this one/,
  );
  expect(schedulePublish(doc, { unpublish_at: '2026-11-29T22:11:00.000Z' }, NOW).schedule).toEqual({
    publish_at: null,
    unpublish_at: '2026-11-29T22:11:00.000Z',
  });
});
