import { connect } from 'node:net';
import { ROUTES, routeKey, SERVICE_LIMITS } from '@cm/contract';
import { replyMismatches } from '../helpers/contract';
import { article, question, useTestStack } from '../helpers/local';
import { BAD_ESCAPES, CONTENT_TYPES, nested, NON_OBJECTS, ODD_NUMBERS, sendRaw, type RawCall } from '../helpers/fuzz';
import { rawRequest, type RawReply } from '../helpers/raw-http';
import { given } from '../helpers/client';

/* Bad input is never a 5xx: it is a 4xx in the one error shape, whatever part of the request is bad. */

const t = useTestStack();

/** One request over its own connection, sent exactly as given, with the demo key. */
const send = (call: RawCall): Promise<RawReply> => sendRaw(t.url, call, t.key);

describe('a path parameter whose percent-escapes do not decode', () => {
  it.each([
    ['GET', '/articles/%E0%A4%A', 'id'],
    ['GET', '/articles/%', 'id'],
    ['GET', '/articles/%zz', 'id'],
    ['GET', '/questions/%C3', 'id'],
    ['PUT', '/questions/%zz/summary', 'id'],
    ['POST', '/questions/%ED%A0%80/answers', 'id'], // the UTF-8 bytes of a lone surrogate
    ['GET', '/sites/1/articles/%zz', 'slug'],
    ['GET', '/sites/%/questions/boiling', 'site_id'],
    ['GET', '/v1/jobs/%', 'job_id'],
    ['POST', '/v1/tools/%zz', 'name'],
  ])('%s %s is 400 validation_failed naming %s', async (method, path, param) => {
    const reply = await t.call(method, path, method === 'GET' ? undefined : {});
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      error: 'validation_failed',
      code: 'validation_failed',
      issues: [{ path: param, message: expect.stringContaining('percent-encoding') }],
    });
  });

  it('does not stop a well-formed escape from decoding', async () => {
    const published = await t.call('POST', '/articles', article('well-formed'));
    expect(published.status).toBe(201);
    expect((await t.call('GET', `/sites/${t.siteId}/articles/well%2Dformed`)).status).toBe(200);
  });
});

describe('JSON nested deeper than the limit', () => {
  const limit = SERVICE_LIMITS.jsonDepthMax;
  // The body object is level 1, `body` level 2 and the block level 3: a field of the block with
  // `levels - 3` arrays reaches `levels`.
  const publish = (levels: number) =>
    `{"slug":"deep","title":"Deep","body":[{"_type":"carousel","slides":${nested(levels - 3)}}]}`;

  it('is taken up to 64 levels, and refused at 65 with 400 validation_failed', async () => {
    expect(limit).toBe(64);
    expect((await t.call('POST', '/articles', publish(limit))).status).toBe(201);
    const refused = await t.call('POST', '/articles', publish(limit + 1));
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: 'validation_failed',
      code: 'validation_failed',
      message: 'body: nests arrays and objects deeper than 64 levels',
      issues: [{ path: '', message: 'nests arrays and objects deeper than 64 levels' }],
    });
  });

  it('refuses a block nested 5,000 levels deep on every route that takes JSON', async () => {
    const deep = nested(5000);
    for (const [method, path, body] of [
      [
        'POST',
        '/articles',
        `{"slug":"deeper","title":"Deeper","body":[{"_type":"paragraph","text":"x","extra":${deep}}]}`,
      ],
      ['POST', '/questions', `{"slug":"deeper","question":"Deeper?","answer":[{"_type":"carousel","x":${deep}}]}`],
      ['POST', '/questions/qst_x/answers', `{"author":"A","blocks":[{"_type":"quote","cite":${deep}}]}`],
      ['POST', '/api/content/notify', `{"id":"art_x","type":"article","extra":${deep}}`],
      ['POST', '/v1/tools/db_insert', `{"table":"cm_topics","row":{"name":"x","extra":${deep}}}`],
    ] as const) {
      const reply = await t.call(method, path, body);
      expect([path, reply.status, reply.body.code]).toEqual([path, 400, 'validation_failed']);
    }
    expect((await t.call('GET', '/articles?slug=deeper')).status).toBe(404);
  });

  it('counts brackets in strings as text', async () => {
    const reply = await t.call(
      'POST',
      '/articles',
      article('brackets', { title: '['.repeat(200), excerpt: '{"[\\"'.repeat(100) }),
    );
    expect(reply.status).toBe(201);
  });
});

describe('a number DynamoDB cannot store exactly', () => {
  it.each(['12345678901234567890', '-9007199254740993', '1e300', '1e-200'])(
    'in db_select where (%s) is 400 naming the field',
    async (number) => {
      const reply = await t.call(
        'POST',
        '/v1/tools/db_select',
        `{"table":"cm_keywords","where":{"cpc_usd":${number}}}`,
      );
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ code: 'validation_failed', issues: [{ path: 'where.cpc_usd' }] });
    },
  );

  it('in a db_insert row is 400 naming the field, and nothing is stored', async () => {
    const reply = await t.call('POST', '/v1/tools/db_insert', {
      table: 'cm_keywords',
      row: { keyword: 'too big', cpc_usd: 1e20 },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 'validation_failed', issues: [{ path: 'row.cpc_usd' }] });
    expect(
      (await t.call('POST', '/v1/tools/db_select', { table: 'cm_keywords', where: { keyword: 'too big' } })).body.rows,
    ).toEqual([]);
  });

  it('is taken up to 2^53 - 1', async () => {
    const reply = await t.call('POST', '/v1/tools/db_select', {
      table: 'cm_keywords',
      where: { cpc_usd: Number.MAX_SAFE_INTEGER },
    });
    expect(reply.status).toBe(200);
  });
});

describe('a request Node cannot parse', () => {
  const errorShape = (code: string) => ({ error: code, code, message: expect.any(String) });

  it('with headers over the server limit is 431 headers_too_large in the error shape', async () => {
    const reply = await send({
      method: 'GET',
      path: `/health?${'a'.repeat(100)}`,
      contentType: `text/plain; x=${'x'.repeat(20_000)}`,
    });
    expect(reply.status).toBe(431);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.body).toEqual(errorShape('headers_too_large'));
  });

  it.each([
    ['a header line without a colon', 'GET /health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'],
    ['a Content-Length that is not a number', 'POST /articles HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n'],
    [
      'a chunk size that is not hex',
      'POST /articles HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    ],
    ['a header value with a control character', 'GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n'],
    ['a space in a header name', 'GET /health HTTP/1.1\r\nHost: x\r\nX Bad: 1\r\n\r\n'],
  ])('with %s is 400 bad_request in the error shape', async (_what, request) => {
    const reply = await rawRequest(t.url, request);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errorShape('bad_request'));
  });

  it.each([
    [
      'POST /mcp',
      `POST /mcp HTTP/1.1\r\nHost: evil.example"><script>\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nX-API-Key: KEY\r\nContent-Length: 2\r\n\r\n{}`,
    ],
    ['a visitor page', 'GET /sites/1/articles/x HTTP/1.1\r\nHost: a/b\r\nConnection: close\r\n\r\n'],
    ['the health check', 'GET /health HTTP/1.1\r\nHost: bad host\r\nConnection: close\r\n\r\n'],
  ])(
    'refuses a malformed Host header on %s with 400 bad_request (audit: 500 on POST /mcp)',
    async (_where, request) => {
      const reply = await rawRequest(t.url, request.replace('KEY', t.key));
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(errorShape('bad_request'));
    },
  );

  it('is answered in the error shape on a connection that already carried a request', async () => {
    const replies = await new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(t.url).port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.includes('{"ok":true}') && !text.includes('bad_request'))
          socket.write('GET /health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n');
      });
      socket.on('close', () => resolve(text));
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    expect(replies).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*HTTP\/1\.1 400 Bad Request[\s\S]*"code":"bad_request"/);
  });
});

/*
 * Generated malformed requests: a seeded generator (mulberry32), so a failure names requests that can
 * be sent again. Each is sent as it is over its own connection, and its answer must be below 500 and
 * what its route declares (an error in the one error shape).
 */

function generator(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let r = Math.imul(state ^ (state >>> 15), 1 | state);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => given(items[int(0, items.length - 1)], 'a random item');
  return { int, pick };
}

/** A valid body for each route that takes one, for the mutations to start from (none that queues slow work). */
const TEMPLATES: Record<string, () => unknown> = {
  'POST /articles': () => article('fuzz-article', { copy: 'See [x](page:art_1).' }),
  'POST /questions': () => question('fuzz-question'),
  'PUT /questions/{id}/summary': () => ({ summary: 'A summary' }),
  'POST /questions/{id}/answers': () => ({ author: 'A reader', blocks: [{ _type: 'paragraph', text: 'Mine' }] }),
  'POST /api/content/notify': () => ({
    id: 'art_x',
    type: 'article',
    status: 'draft',
    updated_at: '2026-01-01T00:00:00Z',
  }),
  'POST /v1/tools/db_select': () => ({ table: 'cm_keywords', where: { cpc_usd: 1.5 }, limit: 10 }),
  'POST /v1/tools/db_insert': () => ({
    table: 'cm_keywords',
    row: { keyword: 'fuzz', volume: 10, cpc_usd: 1.5, competition: 0.5 },
  }),
  'POST /v1/tools/db_delete': () => ({ table: 'cm_topics', id: 1 }),
  'POST /v1/tools/get_keywords': () => ({ seeds: ['fuzz shoes'] }),
  'POST /v1/tools/serp_landscape': () => ({ keyword: 'fuzz shoes', depth: 'metrics' }),
  'POST /v1/tools/serp_backlinks': () => ({ scope: 'site', trend_months: 3 }),
  'POST /v1/tools/recall': () => ({ query: 'fuzz', limit: 5 }),
  'POST /v1/tools/research': () => ({ mode: 'keywords', seed: 'trail shoes, road shoes, hiking boots' }),
};
const TEMPLATE_KEYS = Object.keys(TEMPLATES);

/** `body` with one of its numbers (or a new field) written as `literal`, which JSON.stringify cannot produce. */
function withNumber(body: unknown, literal: string, int: (min: number, max: number) => number): string {
  const marker = '@@number@@';
  const leaves: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value))
      value.forEach((item, i) => (typeof item === 'number' ? leaves.push({ parent: value, key: i }) : walk(item)));
    else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (typeof item === 'number') leaves.push({ parent: value as Record<string, unknown>, key });
        else walk(item);
      }
    }
  };
  walk(body);
  const leaf =
    leaves.length > 0
      ? given(leaves[int(0, leaves.length - 1)], 'a random leaf')
      : { parent: body as Record<string, unknown>, key: 'n' };
  (leaf.parent as Record<string | number, unknown>)[leaf.key] = marker;
  return JSON.stringify(body).replace(`"${marker}"`, literal);
}

function paramPath(routePath: string, value: () => string): string {
  return routePath.replace(/\{\w+\}/g, value);
}

function generate(seed: number, count: number): RawCall[] {
  const { int, pick } = generator(seed);
  const json = (text: string) => Buffer.from(text, 'utf8');
  const withParams = ROUTES.filter((route) => route.path.includes('{'));
  const pathOf = (key: string) =>
    paramPath(given(key.split(' ')[1], 'the route path'), () => pick(['qst_x', 'art_x', '1', 'job_x', 'research']));
  const mutations: (() => RawCall)[] = [
    () => {
      const route = pick(withParams);
      const path = paramPath(route.path, () => (int(0, 3) === 0 ? `x${pick(BAD_ESCAPES)}` : pick(BAD_ESCAPES)));
      return {
        method: route.method,
        path,
        ...(route.method === 'GET' ? {} : { contentType: 'application/json', body: json('{}') }),
      };
    },
    () => {
      const key = pick(TEMPLATE_KEYS);
      const text = JSON.stringify(given(TEMPLATES[key], 'the TEMPLATES[key]')());
      return {
        method: given(key.split(' ')[0], 'the route method'),
        path: pathOf(key),
        contentType: 'application/json',
        body: json(text.slice(0, int(1, text.length - 1))),
      };
    },
    () => {
      const key = pick(TEMPLATE_KEYS);
      return {
        method: given(key.split(' ')[0], 'the route method'),
        path: pathOf(key),
        contentType: 'application/json',
        body: json(pick(NON_OBJECTS)),
      };
    },
    () => {
      const key = pick(TEMPLATE_KEYS);
      const levels = int(SERVICE_LIMITS.jsonDepthMax + 1, 6000);
      const deep = int(0, 1) === 0 ? nested(levels) : '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
      const text = JSON.stringify(given(TEMPLATES[key], 'the TEMPLATES[key]')()).replace(/}$/, `,"deep":${deep}}`);
      return {
        method: given(key.split(' ')[0], 'the route method'),
        path: pathOf(key),
        contentType: 'application/json',
        body: json(text),
      };
    },
    () => {
      const key = pick(TEMPLATE_KEYS);
      return {
        method: given(key.split(' ')[0], 'the route method'),
        path: pathOf(key),
        contentType: 'application/json',
        body: json(withNumber(given(TEMPLATES[key], 'the TEMPLATES[key]')(), pick(ODD_NUMBERS), int)),
      };
    },
    () => {
      const key = pick(TEMPLATE_KEYS);
      return {
        method: given(key.split(' ')[0], 'the route method'),
        path: pathOf(key),
        contentType: pick(CONTENT_TYPES),
        body: json(JSON.stringify(given(TEMPLATES[key], 'the TEMPLATES[key]')())),
      };
    },
    () => {
      const key = pick(TEMPLATE_KEYS);
      const bytes = Buffer.from(Array.from({ length: int(1, 64) }, () => int(0, 255)));
      return {
        method: given(key.split(' ')[0], 'the route method'),
        path: pathOf(key),
        contentType: pick(CONTENT_TYPES),
        body: bytes,
      };
    },
    () => ({
      method: pick(['GET', 'POST', 'PUT', 'DELETE']),
      path: `/${pick(['articles', 'questions', 'v1/tools', 'sites/1/articles'])}/${'a'.repeat(int(100, 40_000))}`,
    }),
    () => ({
      method: 'GET',
      path: `/${pick(['articles', 'questions', 'v1/usage'])}?limit=${pick([...ODD_NUMBERS, '%zz', '-1'])}&cursor=${pick(BAD_ESCAPES)}&status=${pick(BAD_ESCAPES)}&from=${pick(BAD_ESCAPES)}`,
    }),
  ];
  return Array.from({ length: count }, () => pick(mutations)());
}

describe('generated malformed requests', () => {
  it('are each answered below 500, in the error shape (300 requests over loopback)', async () => {
    expect(TEMPLATE_KEYS.every((key) => ROUTES.some((route) => routeKey(route) === key))).toBe(true);
    const failures: string[] = [];
    for (const call of generate(20_261_121, 300)) {
      const reply = await send(call);
      const path = given(call.path.split('?')[0], 'the path');
      const contentType = reply.headers['content-type'] ?? null;
      const mismatches =
        reply.status >= 500 ? ['a 5xx'] : replyMismatches(call.method, path, reply.status, contentType, reply.body);
      if (mismatches.length > 0) {
        const body = call.body?.toString('utf8').slice(0, 200) ?? '';
        failures.push(
          `${call.method} ${call.path.slice(0, 200)} [${call.contentType ?? ''}] ${body} → ${reply.status}: ${mismatches.join('; ')}`,
        );
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
