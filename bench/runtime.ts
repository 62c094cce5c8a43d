import type { Found } from '../test/helpers/platform';

/**
 * The Node the benchmark runs on: the functions' (Node 24, as test/helpers/platform.ts finds it), not
 * the one that started it. What the service's own code costs depends on the engine: Node 20's V8 copies
 * an object spread into a literal with further properties (`{ ...doc, ...state }`, as a page's record is
 * made) at about 10 µs where Node 24's takes 0.2 µs; the visitor page was 1.24–1.30× its exact floor on
 * Node 20 and 1.19–1.25× on Node 24 (2026-11-30). Without a Node 24 it runs on this one and says so first.
 */
export function benchRuntime(
  node24: Found,
  current: string,
  currentVersion: string,
): { node: string; note: string | null } {
  if ('path' in node24) return { node: node24.path, note: null };
  return {
    node: current,
    note: `The benchmark runs on node ${currentVersion}, not the functions' Node 24 (${node24.skip}): the service's own code costs differ by engine, and its ratios with them.`,
  };
}
