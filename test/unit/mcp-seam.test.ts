import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { LIMITS } from '@cm/contract';
import { loadConfig, resetConfig } from '@cm/runtime';
import { apiKeyOf, fromWebResponse, originAllowed, toWebRequest } from '@cm/runtime/mcp';

/* The Lambda ⇄ web seam of the MCP endpoint, its key and origin rules. */

const event = (over: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: 'POST /mcp',
    rawPath: '/mcp',
    rawQueryString: 'a=1',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-forwarded-proto': 'https',
    },
    requestContext: { domainName: 'abc.execute-api.eu-west-1.amazonaws.com', http: { method: 'POST', path: '/mcp' } },
    isBase64Encoded: false,
    ...over,
  }) as APIGatewayProxyEventV2;

describe('the MCP seam', () => {
  it('turns a payload 2.0 event into a web Request, base64 bodies included', async () => {
    const text = await toWebRequest(event({ body: '{"jsonrpc":"2.0"}' })).text();
    expect(text).toBe('{"jsonrpc":"2.0"}');
    const request = toWebRequest(event({ body: Buffer.from('{"x":"é"}').toString('base64'), isBase64Encoded: true }));
    expect(request.url).toBe('https://abc.execute-api.eu-west-1.amazonaws.com/mcp?a=1');
    expect(request.method).toBe('POST');
    expect(request.headers.get('accept')).toBe('application/json, text/event-stream');
    expect(await request.text()).toBe('{"x":"é"}');
  });

  it('turns a web Response into a payload 2.0 result', async () => {
    const result = await fromWebResponse(
      new Response('{"ok":1}', { status: 202, headers: { 'content-type': 'application/json' } }),
    );
    expect(result).toEqual({ statusCode: 202, headers: { 'content-type': 'application/json' }, body: '{"ok":1}' });
  });

  it('reads the key from X-API-Key, else Authorization: Bearer', () => {
    expect(apiKeyOf({ 'x-api-key': 'k1', authorization: 'Bearer k2' })).toBe('k1');
    expect(apiKeyOf({ authorization: 'bearer  k2 ' })).toBe('k2');
    expect(apiKeyOf({ authorization: 'Basic abc' })).toBeUndefined();
    expect(apiKeyOf({})).toBeUndefined();
  });

  it('reads MCP_ALLOWED_ORIGINS and MCP_RESULT_MAX_BYTES through the configuration, with their defaults', () => {
    expect(loadConfig({ TABLE_NAME: 't' })).toMatchObject({
      mcpAllowedOrigins: [],
      mcpResultMaxBytes: LIMITS.mcpResultBytes,
    });
    expect(
      loadConfig({
        TABLE_NAME: 't',
        MCP_ALLOWED_ORIGINS: ' https://a.example.com,,https://b.example.com/ ',
        MCP_RESULT_MAX_BYTES: '2000',
      }),
    ).toMatchObject({
      mcpAllowedOrigins: ['https://a.example.com', 'https://b.example.com/'],
      mcpResultMaxBytes: 2000,
    });
  });

  it('reads the functions it invokes (FUNCTION_<NAME>) and the queue URLs through the configuration, unset when empty', () => {
    expect(loadConfig({ TABLE_NAME: 't' })).toMatchObject({ functionNames: {}, queueUrls: {} });
    const config = loadConfig({
      TABLE_NAME: 't',
      FUNCTION_READ: 'stack-read',
      FUNCTION_SERP_LANDSCAPE: 'stack-serp-landscape',
      FUNCTION_JOBS: '',
      RESEARCH_QUEUE_URL: 'https://sqs.example/research',
    });
    expect(config.functionNames).toEqual({ read: 'stack-read', 'serp-landscape': 'stack-serp-landscape' });
    expect(config.queueUrls).toEqual({ research: 'https://sqs.example/research' });
  });

  it('allows loopback origins, PUBLIC_BASE_URL and MCP_ALLOWED_ORIGINS, nothing else', () => {
    Object.assign(process.env, {
      TABLE_NAME: 't',
      PUBLIC_BASE_URL: 'https://content.example.com/',
      MCP_ALLOWED_ORIGINS: 'https://one.example.com, https://two.example.com/',
    });
    resetConfig();
    try {
      for (const origin of [
        'https://content.example.com',
        'http://localhost',
        'http://localhost:5173',
        'https://127.0.0.1:8443',
        'http://[::1]:3000',
        'https://two.example.com',
      ]) {
        expect({ origin, allowed: originAllowed(origin) }).toEqual({ origin, allowed: true });
      }
      for (const origin of [
        'http://localhost.evil.com',
        'https://evil.example.com',
        'null',
        'http://127.0.0.1.nip.io',
      ]) {
        expect({ origin, allowed: originAllowed(origin) }).toEqual({ origin, allowed: false });
      }
    } finally {
      for (const name of ['TABLE_NAME', 'PUBLIC_BASE_URL', 'MCP_ALLOWED_ORIGINS']) delete process.env[name];
      resetConfig();
    }
  });
});
