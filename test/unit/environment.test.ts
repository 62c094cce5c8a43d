import { LIMITS, RESEARCH_LEASE_MS } from '@cm/contract';
import { RelinkMessage } from '@cm/contract';
import { loadConfig, routeHandler, scheduled, sqsWorker } from '@cm/runtime';

/* The environment is decoded like every other input: a numeric variable that does not fit stops at start, named. */

const NUMERIC: Record<string, { good: string; read: (config: ReturnType<typeof loadConfig>) => unknown }> = {
  DYNAMODB_REQUEST_TIMEOUT_MS: { good: '1500', read: (c) => c.dynamoRequestTimeoutMs },
  DYNAMODB_CONNECTION_TIMEOUT_MS: { good: '1500', read: (c) => c.dynamoConnectionTimeoutMs },
  DATAFORSEO_TIMEOUT_MS: { good: '1500', read: (c) => c.dataforseo.timeoutMs },
  DATAFORSEO_TASK_READY_SECONDS: { good: '0', read: (c) => c.dataforseo.taskReadySeconds },
  SANDBOX_RESEARCH_MS: { good: '0', read: (c) => c.sandboxResearchMs },
  RESEARCH_LEASE_MS: { good: '30000', read: (c) => c.researchLeaseMs },
  RESEARCH_SITE_PLACES: { good: '3', read: (c) => c.researchSitePlaces },
  GLOBAL_DAILY_BUDGET_USD: { good: '25.5', read: (c) => c.globalDailyBudgetUsd },
  MCP_RESULT_MAX_BYTES: { good: '2000', read: (c) => c.mcpResultMaxBytes },
  MCP_APPROVAL_WAIT_MS: { good: '1000', read: (c) => c.mcpApprovalWaitMs },
};

describe('the environment', () => {
  it.each(Object.entries(NUMERIC))('reads %s as its number', (name, { good, read }) => {
    expect(read(loadConfig({ TABLE_NAME: 't', [name]: good }))).toBe(Number(good));
  });

  it.each(Object.keys(NUMERIC))('refuses a typo in %s at start, naming the variable and the value', (name) => {
    for (const typo of ['1O00', '12ms', ' ', 'NaN'])
      expect(() => loadConfig({ TABLE_NAME: 't', [name]: typo })).toThrow(
        new RegExp(`${name} must be .* \\(not ${JSON.stringify(typo)}\\)`),
      );
  });

  it('refuses a whole-number variable given a fraction or one out of its range', () => {
    expect(() => loadConfig({ TABLE_NAME: 't', RESEARCH_LEASE_MS: '1.5' })).toThrow(/RESEARCH_LEASE_MS must be whole/);
    expect(() => loadConfig({ TABLE_NAME: 't', RESEARCH_SITE_PLACES: '0' })).toThrow(
      `RESEARCH_SITE_PLACES must be a whole number from 1 to ${LIMITS.concurrentResearch} (not "0")`,
    );
    expect(() => loadConfig({ TABLE_NAME: 't', MCP_RESULT_MAX_BYTES: '0' })).toThrow(/MCP_RESULT_MAX_BYTES/);
    expect(() => loadConfig({ TABLE_NAME: 't', MCP_APPROVAL_WAIT_MS: '999' })).toThrow(
      'MCP_APPROVAL_WAIT_MS must be whole milliseconds from 1000 to 180000 (not "999")',
    );
  });

  it('names every variable that does not fit at once', () => {
    expect(() => loadConfig({ TABLE_NAME: 't', RESEARCH_LEASE_MS: 'x', DATAFORSEO_TIMEOUT_MS: 'y' })).toThrow(
      /DATAFORSEO_TIMEOUT_MS must be .*; RESEARCH_LEASE_MS must be|RESEARCH_LEASE_MS must be .*; DATAFORSEO_TIMEOUT_MS must be/,
    );
  });

  it('takes an unset or empty variable for its default', () => {
    const empty = Object.fromEntries(Object.keys(NUMERIC).map((name) => [name, '']));
    for (const env of [{ TABLE_NAME: 't' }, { TABLE_NAME: 't', ...empty }])
      expect(loadConfig(env)).toMatchObject({
        dynamoRequestTimeoutMs: undefined,
        sandboxResearchMs: undefined,
        researchLeaseMs: RESEARCH_LEASE_MS,
        researchSitePlaces: LIMITS.researchSitePlaces,
        globalDailyBudgetUsd: null,
        mcpResultMaxBytes: LIMITS.mcpResultBytes,
        mcpApprovalWaitMs: 45_000,
      });
  });

  it('stops a function at its start, when its handler is built, not at each call that reads the config', () => {
    const before = process.env.RESEARCH_SITE_PLACES;
    process.env.RESEARCH_SITE_PLACES = 'five';
    try {
      const named = /RESEARCH_SITE_PLACES must be .* \(not "five"\)/;
      expect(() => routeHandler({}, new WeakMap())).toThrow(named);
      expect(() => sqsWorker('relink', RelinkMessage, async () => undefined)).toThrow(named);
      expect(() => scheduled('research-sweep', async () => ({}))).toThrow(named);
    } finally {
      if (before === undefined) delete process.env.RESEARCH_SITE_PLACES;
      else process.env.RESEARCH_SITE_PLACES = before;
    }
    expect(() => routeHandler({}, new WeakMap())).not.toThrow();
  });
});
