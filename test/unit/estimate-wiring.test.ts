import { PAID_TOOLS, isPaidTool, SERP_KEYWORD_REFRESH } from '@cm/contract';
import { Bug } from '@cm/core';
import { tool } from '@cm/runtime';
import {
  addCompetitor,
  getKeywords,
  research,
  serpBacklinks,
  serpKeywordRefresh,
  serpLandscape,
  trackRankings,
} from '@cm/tools';

/*
 * Every paid tool answers estimate: true from its own workflow's plan (`plan`, beside the run). A paid
 * tool's workflow without one would run, and spend, on an estimate: the compiler refuses it, and so does
 * tool() when its function loads.
 */

it('carries a plan on every paid tool workflow, and refuses a paid workflow without one at compile time and at load', () => {
  const workflows = {
    research,
    get_keywords: getKeywords,
    serp_landscape: serpLandscape,
    serp_keyword_refresh: serpKeywordRefresh,
    serp_backlinks: serpBacklinks,
    add_competitor: addCompetitor,
    track_rankings: trackRankings,
  };
  expect(Object.keys(workflows).sort()).toEqual([...PAID_TOOLS].sort());
  for (const workflow of Object.values(workflows)) expect(typeof workflow.plan).toBe('function');
  expect(typeof tool(SERP_KEYWORD_REFRESH, serpKeywordRefresh)).toBe('function');

  const planless = async (...args: Parameters<typeof serpKeywordRefresh>) => serpKeywordRefresh(...args);
  // @ts-expect-error a paid tool's workflow must carry its plan
  expect(() => tool(SERP_KEYWORD_REFRESH, planless)).toThrow(
    /serp_keyword_refresh is a paid tool and its workflow has no estimate/,
  );
  // A bug of the wiring, not a fault of the caller or a provider: logged as one.
  // @ts-expect-error a paid tool's workflow must carry its plan
  expect(() => tool(SERP_KEYWORD_REFRESH, planless)).toThrow(Bug);
  expect(isPaidTool('db_select')).toBe(false);
});
