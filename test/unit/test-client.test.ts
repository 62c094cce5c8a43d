import { apiClient, variant, type Reply } from '../helpers/client';

/*
 * The typed test client (test/helpers/client.ts) takes its routes' types from the contract's ROUTES.
 * The `@ts-expect-error` lines are the type test: `npx tsc` fails on them once the client stops being
 * typed from the declarations (a reply or body typed `any` makes the error they expect vanish).
 */

/** A caller that answers every request with `body` and `status`, and records what it was sent. */
function answering(status: number, body: unknown) {
  const sent: { method: string; path: string; body: unknown }[] = [];
  const caller = {
    key: 'the-key',
    call: async <T>(method: string, path: string, sentBody?: unknown): Promise<Reply<T>> => {
      sent.push({ method, path, body: sentBody });
      const text = JSON.stringify(body);
      return { status, headers: new Headers(), body: JSON.parse(text), text };
    },
  };
  return { caller, sent };
}

describe('the typed test client', () => {
  it('answers a route the reply type its declaration gives, checked against its schema', async () => {
    const { caller, sent } = answering(200, { ok: true });
    const health = await apiClient(caller).route('GET /health', { query: { deep: 1 } });
    const ok: true = health.body.ok;
    expect(ok).toBe(true);
    expect(sent).toEqual([{ method: 'GET', path: '/health?deep=1', body: undefined }]);
    // @ts-expect-error GET /health declares a reply with `ok` only
    expect(health.body.items).toBeUndefined();
  });

  it('refuses a reply unlike its route’s schema', async () => {
    const { caller } = answering(200, { ok: 'yes' });
    await expect(apiClient(caller).route('GET /health')).rejects.toThrow(
      'GET /health (/health) answered unlike its type',
    );
  });

  it('fills the path parameters and sends the body its route declares', async () => {
    const { caller, sent } = answering(400, { error: 'validation_failed', code: 'validation_failed', message: 'no' });
    const client = apiClient(caller);
    // The error is the reply's, whatever the body: routeError takes any.
    await client.routeError('PUT /v1/budget', { body: { daily_usd: 'ten' } });
    // @ts-expect-error PUT /v1/budget declares daily_usd a number or null
    await expect(client.route('PUT /v1/budget', { body: { daily_usd: 'ten' } })).rejects.toThrow('answered 400');
    await expect(client.route('GET /articles/{id}', { params: { id: 'a b' } })).rejects.toThrow('answered 400');
    expect(sent.map((s) => s.path)).toEqual(['/v1/budget', '/v1/budget', '/articles/a%20b']);
  });

  it('answers a tool call a limit may refuse with its status, and its error when refused', async () => {
    const error = { error: 'budget_exceeded', code: 'budget_exceeded', message: 'over', window: 'day' };
    const refused = await apiClient(answering(402, error).caller).toolOutcome('get_keywords', { seeds: ['shoes'] });
    expect(refused).toEqual({ status: 402, error });
    const deleted = {
      data_source: 'database',
      cost_usd: 0,
      cached: false,
      table: 'cm_topics',
      id: 7,
      deleted: true,
      cascaded: {},
    };
    const ran = await apiClient(answering(200, deleted).caller).toolOutcome('db_delete', { table: 'cm_topics', id: 7 });
    expect(ran).toEqual({ status: 200, error: null });
    const unlike = answering(200, { keywords: [] }).caller;
    await expect(apiClient(unlike).toolOutcome('get_keywords', { seeds: ['shoes'] })).rejects.toThrow(
      'unlike its type',
    );
  });

  it('gives an error its body as sent, every field of its issues kept, and refuses one unlike the error shape', async () => {
    const body = {
      error: 'validation_failed',
      code: 'validation_failed',
      message: 'no',
      issues: [{ path: 'daily_usd', message: 'Expected number', expected: 'number' }],
    };
    expect((await apiClient(answering(400, body).caller).routeError('PUT /v1/budget')).body).toEqual(body);
    await expect(apiClient(answering(500, { oops: true }).caller).toolError('recall', {})).rejects.toThrow(
      'recall answered unlike its type',
    );
  });

  it('takes a reply of several shapes as the one its key names, and throws on another', () => {
    type Job =
      { status: 'succeeded'; facts: string[] } | { status: 'queued' | 'failed'; job_id: string } | { mode: 'x' };
    const done: Job = { status: 'succeeded', facts: ['f'] };
    expect(variant(done, 'status', 'succeeded').facts).toEqual(['f']);
    const failed: Job = { status: 'failed', job_id: 'j' };
    expect(variant(failed, 'status', 'failed').job_id).toBe('j');
    // @ts-expect-error a failed job has no facts
    expect(variant(failed, 'status', 'failed').facts).toBeUndefined();
    expect(() => variant(failed, 'status', 'succeeded')).toThrow('expected status succeeded, got {"status":"failed"');
  });
});
