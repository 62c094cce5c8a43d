import { Bug } from '@cm/core';
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
  expect(() => new Update().set('a', 1).setIfAbsent('b', 2, { valueKey: 'a' })).toThrow(
    new Bug(':a is given two values'),
  );
  expect(() => new Update().input()).toThrow(new Bug('an update that changes nothing'));
  expect(() => new Update().input()).toThrow(Bug);
  expect(new Update().remove('a').input()).toEqual({
    UpdateExpression: 'REMOVE #a',
    ExpressionAttributeNames: { '#a': 'a' },
  });
});

it('adds to a number and to a set, deletes from a set, and removes, each clause once in a fixed order', () => {
  const update = new Update()
    .deleteFromSet('group#a', new Set(['job-1']), { valueKey: 'owners' })
    .add('inflight', -1)
    .remove(['leases', 'job-1'])
    .set('window_start', 5, { valueKey: 'now' })
    .set('checked_at', 5, { valueKey: 'now' })
    .add('used', new Set(['x']));
  expect(update.input()).toEqual({
    UpdateExpression:
      'SET #window_start = :now, #checked_at = :now REMOVE #leases.#job_1 ADD #inflight :inflight, #used :used ' +
      'DELETE #group_a :owners',
    ExpressionAttributeNames: {
      '#group_a': 'group#a',
      '#inflight': 'inflight',
      '#leases': 'leases',
      '#job_1': 'job-1',
      '#window_start': 'window_start',
      '#checked_at': 'checked_at',
      '#used': 'used',
    },
    ExpressionAttributeValues: { ':owners': new Set(['job-1']), ':inflight': -1, ':now': 5, ':used': new Set(['x']) },
  });
});

it('names each part of a map path apart, and two names that spell one placeholder apart', () => {
  const update = new Update().set(['leases', 'a:b'], 1, { valueKey: 'expiry' }).set('a_b', 2).set(['x.y'], 3);
  expect(update.input()).toEqual({
    UpdateExpression: 'SET #leases.#a_b = :expiry, #a_b_2 = :a_b, #x_y = :x_y',
    ExpressionAttributeNames: { '#leases': 'leases', '#a_b': 'a:b', '#a_b_2': 'a_b', '#x_y': 'x.y' },
    ExpressionAttributeValues: { ':expiry': 1, ':a_b': 2, ':x_y': 3 },
  });
  // The same name is one placeholder however often it is named; a long one is cut, and its twin told apart.
  const long = 'o'.repeat(40);
  const twins = new Update().remove(['leases', long], ['leases', `${long}!`], ['leases', long]);
  expect(twins.input()).toMatchObject({
    UpdateExpression: `REMOVE #leases.#${'o'.repeat(32)}, #leases.#${'o'.repeat(32)}_2, #leases.#${'o'.repeat(32)}`,
  });
});

it('writes its conditions over its own placeholders, several joined by AND', () => {
  const update = new Update().set('state', 'running');
  update
    .when(update.oneOf('state', ['queued', 'waiting'], 'from'))
    .when(`${update.absent(['leases', 'j'])} OR ${update.contains('holders', 'j', 'owner')}`)
    .when(update.exists('pk'));
  expect(update.input()).toEqual({
    UpdateExpression: 'SET #state = :state',
    ConditionExpression:
      '(#state IN (:from_0, :from_1)) AND (attribute_not_exists(#leases.#j) OR contains(#holders, :owner)) ' +
      'AND (attribute_exists(#pk))',
    ExpressionAttributeNames: { '#state': 'state', '#leases': 'leases', '#j': 'j', '#holders': 'holders', '#pk': 'pk' },
    ExpressionAttributeValues: { ':state': 'running', ':from_0': 'queued', ':from_1': 'waiting', ':owner': 'j' },
  });
  const one = new Update().remove('a');
  expect(one.when(one.exists('a')).input().ConditionExpression).toBe('attribute_exists(#a)');
  expect(() => one.oneOf('a', [])).toThrow('a is tested against no values');
});
