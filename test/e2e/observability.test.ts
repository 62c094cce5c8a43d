import { publishArticle, startTestStack, type TestStack } from '../helpers/local';
import { apiClient, given } from '../helpers/client';
import { captureOutput } from '../helpers/output';

/* What the handlers log and measure, read off their stdout as CloudWatch would: Powertools JSON log lines and EMF metric lines. */

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_RESEARCH_MS: '50' } });
}, 60_000);
afterAll(() => t.stop());

let output: ReturnType<typeof captureOutput>;
beforeEach(() => {
  output = captureOutput({ level: 'INFO', metrics: true });
});
afterEach(() => output.stop());

const sum = (values: { value: number }[]) => values.reduce((total, v) => total + v.value, 0);

describe('logs', () => {
  it('writes one JSON line per request with the Lambda request id, the API request id, the route, the site and the status', async () => {
    const created = await publishArticle(t, 'observed-article');
    expect(created.status).toBe(201);
    expect(output.logs('answered')).toEqual([
      expect.objectContaining({
        level: 'INFO',
        service: 'content-api',
        function_name: 'publish',
        function_request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        api_request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        route: 'POST /articles',
        site_id: t.siteId,
        status: 201,
        timestamp: expect.any(String),
      }),
    ]);
  });

  it('names the tool on a tool call, and logs a refused call without the site it could not prove', async () => {
    expect((await t.call('POST', '/v1/tools/get_keywords', { seeds: ['trail shoes'] })).status).toBe(200);
    expect(output.logs('answered')).toEqual([
      expect.objectContaining({ function_name: 'get-keywords', tool: 'get_keywords', site_id: t.siteId, status: 200 }),
    ]);

    expect(
      (await t.call('POST', '/v1/tools/get_keywords', { seeds: ['trail shoes'] }, { key: 'cm_wrong' })).status,
    ).toBe(401);
    const refused = given(output.logs('answered')[1], 'the output.logs("answered")[1]');
    expect(refused).toMatchObject({ status: 401, code: 'unauthorized', route: 'POST /v1/tools/get_keywords' });
    expect(refused.site_id).toBeUndefined();
    expect(JSON.stringify(output.lines)).not.toContain('cm_wrong');
  });

  it("keeps concurrent requests' keys apart", async () => {
    const other = await t.newSite('Observed other');
    const calls = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0
        ? t.call('POST', '/v1/tools/get_keywords', { seeds: [`shoe ${i}`] })
        : t.call('GET', '/v1/usage', undefined, { key: other.key }),
    );
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual(Array(10).fill(200));
    const answered = output.logs('answered');
    expect(answered).toHaveLength(10);
    for (const line of answered) {
      if (line.route === 'GET /v1/usage') expect(line).toMatchObject({ site_id: other.siteId, function_name: 'usage' });
      else expect(line).toMatchObject({ site_id: t.siteId, tool: 'get_keywords' });
      if (line.route === 'GET /v1/usage') expect(line.tool).toBeUndefined();
    }
  });
});

describe('metrics (EMF)', () => {
  it('counts publishes and notifies, and the relink worker counts the pages it relinked', async () => {
    const target = (await publishArticle(t, 'metric-target')).body.id;
    for (const slug of ['metric-linker-1', 'metric-linker-2']) {
      expect((await publishArticle(t, slug, { related_article_ids: [target] })).status).toBe(201);
    }
    const publishes = output.metric('publishes');
    expect(publishes.map((m) => m.value)).toEqual([1, 1, 1]);
    expect(publishes[0]).toMatchObject({ namespace: 'ContentApi', dimensions: ['service'] });
    expect(given(publishes[0], 'the publishes[0]').line.service).toBe('content-api');

    expect(
      (
        await apiClient(t).route('POST /api/content/notify', {
          body: { id: target, type: 'article', action: 'unpublished' },
        })
      ).body.relink,
    ).toBe('queued');
    await t.stack.drain();
    expect(output.metric('notifies').map((m) => m.value)).toEqual([1]);
    expect(sum(output.metric('relinks'))).toBe(2);
  });

  it('counts each tool call and its provider cost by tool, and the refresh quota a site has used', async () => {
    const site = await t.newSite('Metrics site', { domain: 'metrics.example.com', locale: 'US/en' });
    const tool = (name: string, body: unknown) => t.call('POST', `/v1/tools/${name}`, body, { key: site.key });
    const keywords = await tool('get_keywords', { seeds: ['running shoes', 'trail shoes'] });
    const refreshes = [
      await tool('serp_keyword_refresh', { keyword: 'running shoes' }),
      await tool('serp_keyword_refresh', { keyword: 'trail shoes' }),
    ];

    const calls = output.metric('tool_calls');
    expect(calls.map((m) => [m.line.tool, m.value])).toEqual([
      ['get_keywords', 1],
      ['serp_keyword_refresh', 1],
      ['serp_keyword_refresh', 1],
    ]);
    for (const call of calls) expect(call.dimensions).toEqual(['service', 'tool']);
    const costs = output.metric('provider_cost_usd');
    expect(costs.map((m) => m.value)).toEqual([keywords.body.cost_usd, ...refreshes.map((r) => r.body.cost_usd)]);
    expect(output.metric('refresh_quota_used').map((m) => m.value)).toEqual([1, 2]);
  });

  it('reads the research places in use whenever research asks for one, and costs a job under the tool that queued it', async () => {
    const reply = await t.call('POST', '/v1/tools/research', { mode: 'web', seed: 'How do I clean running shoes?' });
    expect(reply.body.status).toBe('succeeded');
    // The worker's invocation writes its line when it returns, which may be after the caller saw the job end.
    await t.stack.drain();
    expect(output.metric('research_slots_in_use')).toEqual([
      expect.objectContaining({ value: 1, dimensions: ['service', 'tool'] }),
    ]);
    // The worker's own line: the job's cost alone, by the tool that queued it (the tool's line also counts the call).
    const lines = output.metric('provider_cost_usd');
    const job = lines.filter((m) => m.line.tool_calls === undefined);
    const call = lines.filter((m) => m.line.tool_calls === 1);
    expect(job).toEqual([expect.objectContaining({ dimensions: ['service', 'tool'] })]);
    expect(given(job[0], 'the job[0]').line.tool).toBe('research');
    expect(call).toHaveLength(1);
    // The reply's cost is the job's plus the call's own.
    expect(reply.body.cost_usd).toBeCloseTo(given(job[0], 'the job[0]').value + given(call[0], 'the call[0]').value, 6);
  });

  it('writes no metrics line for a request that measured nothing', async () => {
    expect((await t.call('GET', '/v1/usage')).status).toBe(200);
    expect(output.lines.filter((line) => line._aws)).toEqual([]);
    expect(output.logs('answered')).toHaveLength(1);
  });
});
