import { Update } from '../../packages/store/src/update';

/* The store's update expressions, built a clause at a time. */

it('names every attribute and value by a placeholder, once each', () => {
  const update = new Update()
    .set('status', 'published')
    .setIfAbsent('created_at', '2026-11-28', { valueKey: 'now' })
    .set('notified_at', '2026-11-28')
    .setIfAbsent('gsi5sk', 'x#1', { from: 'listing_sk', valueKey: 'lsk' })
    .setOrRemove('category', null)
    .setOrRemove('suppressed_since#art_1', 'then')
    .remove('site_clock');
  expect(update.input()).toEqual({
    UpdateExpression:
      'SET #status = :status, #created_at = if_not_exists(#created_at, :now), #notified_at = :notified_at, ' +
      '#gsi5sk = if_not_exists(#listing_sk, :lsk), #suppressed_since_art_1 = :suppressed_since_art_1 ' +
      'REMOVE #category, #site_clock',
    ExpressionAttributeNames: {
      '#status': 'status',
      '#created_at': 'created_at',
      '#notified_at': 'notified_at',
      '#gsi5sk': 'gsi5sk',
      '#listing_sk': 'listing_sk',
      '#category': 'category',
      '#suppressed_since_art_1': 'suppressed_since#art_1',
      '#site_clock': 'site_clock',
    },
    ExpressionAttributeValues: {
      ':status': 'published',
      ':now': '2026-11-28',
      ':notified_at': '2026-11-28',
      ':lsk': 'x#1',
      ':suppressed_since_art_1': 'then',
    },
  });
});

it('refuses one placeholder for two values, and an update that changes nothing', () => {
  expect(() => new Update().set('a', 1).setIfAbsent('b', 2, { valueKey: 'a' })).toThrow(':a is given two values');
  expect(() => new Update().input()).toThrow('an update that changes nothing');
  expect(new Update().remove('a').input()).toEqual({
    UpdateExpression: 'REMOVE #a',
    ExpressionAttributeNames: { '#a': 'a' },
  });
});
