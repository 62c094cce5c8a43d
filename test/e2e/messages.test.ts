import { useTestStack } from '../helpers/local';
import { apiClient } from '../helpers/client';

/* Messages that say what the caller did: a missing field is required, a missing slug is named as sent. */

const t = useTestStack();

it('says a notify without type that type is Required, not that its value is not an option', async () => {
  const client = apiClient(t);
  const reply = await client.routeError('POST /api/content/notify', {
    body: { id: 'art_aaaaaaaaaaaaaaaa', status: 'draft' },
  });
  expect(reply.status).toBe(400);
  expect(reply.body.issues).toEqual([{ path: 'type', message: 'Required' }]);
  // A value that is there but wrong still says what it may be.
  const wrong = await client.routeError('POST /api/content/notify', {
    body: { id: 'art_aaaaaaaaaaaaaaaa', type: 'page' },
  });
  expect(wrong.body.issues).toEqual([{ path: 'type', message: expect.stringContaining('"article"') }]);
  // The same for a publish without its required fields.
  const publish = await client.routeError('POST /articles', { body: { slug: 'no-title', body: [] } });
  expect(publish.body.issues).toEqual([{ path: 'title', message: 'Required' }]);
});

it('names a slug that is not there by the slug the caller sent, not by an id it never saw', async () => {
  const client = apiClient(t);
  const reply = await client.routeError('GET /articles', { query: { slug: 'never-published' } });
  expect(reply.status).toBe(404);
  expect(reply.body.message).toBe('No article with slug "never-published"');
  const byId = await client.routeError('GET /questions/{id}', { params: { id: 'que_aaaaaaaaaaaaaaaa' } });
  expect(byId.body.message).toBe('No question with id que_aaaaaaaaaaaaaaaa');
});
