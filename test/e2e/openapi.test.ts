import { replyMismatches } from '../helpers/contract';
import { useTestStack } from '../helpers/local';
import { validateOpenApi } from '../helpers/openapi';

/* The document is valid, and the replies are what it declares (every call through the test stack checks its reply). */

const t = useTestStack();

describe('GET /openapi.json', () => {
  it('passes an OpenAPI 3.1 validator: the official schema, and every $ref resolves', async () => {
    const reply = await t.call('GET', '/openapi.json', undefined, { key: null });
    expect(reply.status).toBe(200);
    expect(validateOpenApi(reply.body)).toEqual({ valid: true });
  });
});

describe('the check of each reply against its route', () => {
  const meta = { data_source: 'database', cost_usd: 0, cached: true };
  const json = 'application/json; charset=utf-8';

  it('passes a reply as declared', () => {
    expect(
      replyMismatches('POST', '/v1/tools/db_select', 200, json, {
        ...meta,
        table: 'cm_topics',
        rows: [],
        next_cursor: null,
      }),
    ).toEqual([]);
    expect(
      replyMismatches('GET', '/articles/%zz', 400, json, {
        error: 'validation_failed',
        code: 'validation_failed',
        message: 'x',
        issues: [],
      }),
    ).toEqual([]);
  });

  it('names a missing or mistyped field, and a field the declaration does not have', () => {
    expect(
      replyMismatches('POST', '/v1/tools/db_select', 200, json, { ...meta, table: 'cm_topics', next_cursor: 5 }),
    ).toEqual([expect.stringMatching(/^rows: /), expect.stringMatching(/^next_cursor: /)]);
    expect(
      replyMismatches('POST', '/v1/tools/db_select', 200, json, {
        ...meta,
        table: 'cm_topics',
        rows: [],
        next_cursor: null,
        total: 3,
      }),
    ).toEqual(['total: not declared']);
  });

  it('holds errors to the one error shape and the error table', () => {
    expect(replyMismatches('POST', '/v1/tools/db_select', 400, json, { message: 'no code' })).not.toEqual([]);
    expect(
      replyMismatches('POST', '/v1/tools/db_select', 404, json, {
        error: 'invalid_json',
        code: 'invalid_json',
        message: 'x',
      }),
    ).toEqual(['code invalid_json is not a 404 in the error table']);
    expect(replyMismatches('POST', '/v1/tools/db_select', 500, 'text/plain', 'Internal Server Error')).not.toEqual([]);
  });

  it('refuses a success status the route does not declare', () => {
    expect(replyMismatches('POST', '/questions/qst_x/answers', 200, json, { answer_id: 'a' })).toEqual([
      '200 is not a declared reply of POST /questions/{id}/answers',
    ]);
  });
});
