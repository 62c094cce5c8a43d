import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeClock } from '../helpers/clock';
import { article, question, useTestStack } from '../helpers/local';

/*
 * The service's outside, byte for byte: the served OpenAPI document, tools/list on every MCP protocol
 * era, and a few representative replies, against the files committed beside this test. A refactor must
 * leave them unchanged (docs/contributing.md#golden-files). A change meant to change them rewrites them
 * with `UPDATE_GOLDEN=1 npx jest test/golden`, and the diff of the files is then part of its review.
 *
 * Nothing is normalised, and only the `date` header and the connection's own headers are left out: the
 * inputs are fixed, the clock is a test clock, the deployment's address is PUBLIC_BASE_URL (not the
 * stack's free port), and page ids are derived from the site and the slug.
 */

const UPDATE = process.env.UPDATE_GOLDEN === '1';
const NOW = Date.parse('2026-03-02T10:00:00.000Z');

beforeAll(() => fakeClock(NOW));
afterAll(() => jest.useRealTimers());

const t = useTestStack({ env: { PUBLIC_BASE_URL: 'https://api.golden.example' } });

/** `actual` equals the golden file `name` byte for byte; with UPDATE_GOLDEN=1 it becomes that file. */
function expectGolden(name: string, actual: string): void {
  const path = join(__dirname, name);
  if (UPDATE) writeFileSync(path, actual);
  if (!existsSync(path)) throw new Error(`no golden file ${name}: run UPDATE_GOLDEN=1 npx jest test/golden`);
  expect(difference(readFileSync(path), Buffer.from(actual))).toBeNull();
}

/** Where two byte strings first differ, with the text around it in each; null when they are the same. */
function difference(expected: Buffer, actual: Buffer): string | null {
  if (expected.equals(actual)) return null;
  let at = 0;
  while (at < expected.length && expected[at] === actual[at]) at += 1;
  const around = (bytes: Buffer) => JSON.stringify(bytes.subarray(Math.max(0, at - 80), at + 80).toString('utf8'));
  return [
    `differs from byte ${at} (sizes ${expected.length} and ${actual.length}; sha256 ${sha256(expected)} and ${sha256(actual)})`,
    `golden: ${around(expected)}`,
    `served: ${around(actual)}`,
  ].join('\n');
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const VARIABLE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** A reply as its golden file keeps it: status, headers (sorted), body text. */
async function recorded(response: Response): Promise<string> {
  const headers = [...response.headers.entries()]
    .filter(([name]) => !VARIABLE_HEADERS.has(name))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name}: ${value}`);
  return [`HTTP ${response.status}`, ...headers, '', await response.text()].join('\n');
}

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${t.url}${path}`, {
    method,
    headers: {
      'x-api-key': t.key,
      ...(body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('the OpenAPI document', () => {
  it('is served byte for byte as the golden file', async () => {
    const response = await fetch(`${t.url}/openapi.json`);
    expect(response.status).toBe(200);
    expectGolden('openapi.json', await response.text());
  });
});

describe('tools/list', () => {
  /** tools/list as a raw JSON-RPC POST in `version`: the whole body the server sends. */
  const list = async (version: string) => {
    const modern = version >= '2026';
    const response = await send(
      'POST',
      '/mcp',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        ...(modern
          ? {
              params: {
                _meta: {
                  'io.modelcontextprotocol/protocolVersion': version,
                  'io.modelcontextprotocol/clientInfo': { name: 'golden', version: '1' },
                  'io.modelcontextprotocol/clientCapabilities': {},
                },
              },
            }
          : {}),
      },
      {
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': version,
        ...(modern ? { 'mcp-method': 'tools/list' } : {}),
      },
    );
    expect(response.status).toBe(200);
    return await response.text();
  };

  // Every 2025-era revision the server speaks answers the same bytes; 2026-07-28 adds its cache hints.
  it.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])(
    'is on protocol %s byte for byte as the 2025 golden file',
    async (version) => {
      expectGolden('tools-list-2025.json', await list(version));
    },
  );

  it('is on protocol 2026-07-28 byte for byte as its golden file', async () => {
    expectGolden('tools-list-2026-07-28.json', await list('2026-07-28'));
  });
});

describe('replies', () => {
  it('to publishing, reading and a visitor page, a sandbox tool call and refusals are as the golden file', async () => {
    const replies: string[] = [];
    const record = async (label: string, response: Promise<Response>) => {
      replies.push(`### ${label}\n${await recorded(await response)}\n`);
    };
    const published = send('POST', '/articles', article('golden-article', { description: 'The golden article' }));
    const { id } = (await (await published).clone().json()) as { id: string };
    await record('POST /articles', published);
    await record('GET /articles/{id}', send('GET', `/articles/${id}`));
    await record('POST /questions', send('POST', '/questions', question('golden-question')));
    await record('GET /articles', send('GET', '/articles'));
    await record('GET /sites/{site_id}/articles/{slug}', send('GET', `/sites/${t.siteId}/articles/golden-article`));
    await record(
      'POST /v1/tools/get_keywords',
      send('POST', '/v1/tools/get_keywords', { seeds: ['golden keys', 'trail shoes'] }),
    );
    await record('GET /v1/tools', send('GET', '/v1/tools'));
    await record('GET /v1/usage', send('GET', '/v1/usage'));
    await record('GET /v1/budget', send('GET', '/v1/budget'));
    await record('GET /health', send('GET', '/health'));
    await record('GET /.well-known/oauth-protected-resource', send('GET', '/.well-known/oauth-protected-resource'));
    await record('POST /articles (invalid)', send('POST', '/articles', { slug: 'Not A Slug' }));
    await record('GET /v1/budget (no key)', send('GET', '/v1/budget', undefined, { 'x-api-key': 'nope' }));
    await record('POST /v1/tools/nope', send('POST', '/v1/tools/nope', {}));
    expectGolden('replies.txt', replies.join('\n'));
  });
});
