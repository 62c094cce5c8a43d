import { BREAKER, CONSENT_KEY_ATTEMPTS, KEYWORD_MAX_CHARS, LIMITS, RATE_RULES, RELINK_BATCH_PAGES } from '@cm/contract';
import { SHARED_RESEARCH_MS } from '@cm/core';
import { KEY_CACHE_MS } from '@cm/runtime';
import { RECURSIVE_LOOP_LIMIT, ROUTE_TIMEOUT_MS } from '@cm/local';
import { SITES_PER_PLAN } from '@cm/tools';
import { HEAVY_TENANTS } from '../../infra/constructs/throttles';
import { RELATED_CARDS_MAX } from '../../packages/core/src/render';
import { RELINK_MAX_BATCHES } from '../../packages/publishing/src/relink';
import { INLINE_LIMIT_BYTES } from '../../packages/store/src/codec';
import { DEPLOYMENT_SPEND_SHARDS } from '../../packages/store/src/keys';
import { prose, section, thousands } from './doc-text';

/*
 * docs/architecture/storage.md's figures that are settings of the code: each claim below is a phrase made
 * from the code's constants, and the page states it, so a setting changed in the code and not on the page
 * (or the page's figure changed alone) fails here. (The page's other figures, the round-trip counts of its
 * tables and AWS's quotas, are not compared here yet.)
 */
const page = prose('architecture/storage.md');
const publish = RATE_RULES.find((rule) => rule.name === 'publish-per-key')!;
const publishPerSecond = publish.limit / publish.windowSeconds;

describe('docs/architecture/storage.md', () => {
  it("states the code's settings: key sizes, chunks, caps, shards, caches, batches", () => {
    const claims = [
      // Item types.
      `a keyword ${KEYWORD_MAX_CHARS} characters`,
      `a part of a document still over ${INLINE_LIMIT_BYTES / 1024} KB gzipped`,
      `\`SEM#research\` is the global cap of ${LIMITS.concurrentResearch}; \`SEM#competitors#<site>\` has a site's places for ${LIMITS.activeCompetitors} active competitors`,
      `split over ${DEPLOYMENT_SPEND_SHARDS} shards (\`0\`…\`${DEPLOYMENT_SPEND_SHARDS - 1}\`, a partition each)`,
      `(the failures of the current ${BREAKER.windowMs / 1000} s window)`,
      `from an address in a ${CONSENT_KEY_ATTEMPTS.windowSeconds / 60}-minute window`,
      // Round trips.
      `then cached for ${KEY_CACHE_MS / 1000} s in the container`,
      `then cached ${KEY_CACHE_MS / 1000} s (the key's lookup ${KEY_CACHE_MS / 1000} s on its own); 1 when the container looked the key up in the last ${KEY_CACHE_MS / 1000} s`,
      `the first ${RELATED_CARDS_MAX} related pages`,
      `1 message per ${RELINK_BATCH_PAGES}, 1 UpdateItem (the plan's count)`,
      `| relink, per batch of ${RELINK_BATCH_PAGES} linking pages |`,
      `closed: 1 GetItem per provider per function container per ${BREAKER.cacheMs / 1000} s`,
      `then 1 SendMessage per ${SITES_PER_PLAN} sites`,
      `| a monitoring plan (${SITES_PER_PLAN} sites) |`,
      // Capacity.
      `a key's ${publish.limit} a minute (WAF), then the route's ${HEAVY_TENANTS * publishPerSecond} a second shared by every site, room for ${HEAVY_TENANTS} keys at their limit at once`,
      `a key's WAF limit (${publishPerSecond} a second)`,
      `only past ${HEAVY_TENANTS} keys at their limit together`,
      `the route's ${ROUTE_TIMEOUT_MS / 1000} s, for a page`,
      `one plan covers ${thousands(RELINK_MAX_BATCHES * RELINK_BATCH_PAGES)} linkers`,
      `Lambda's loop detection (${RECURSIVE_LOOP_LIMIT})`,
      `| the semaphore item (${LIMITS.concurrentResearch} places), the job, the waiting-list item | ${LIMITS.concurrentResearch} at once, the spec's cap;`,
      `its breaker opens after ${BREAKER.failures} failures in ${BREAKER.windowMs / 1000} s and refuses at once for ${BREAKER.coolDownMs / 1000} s`,
      `the research semaphore at ${LIMITS.concurrentResearch} places, by the spec`,
      `\`SPEND#<shard>\` (${DEPLOYMENT_SPEND_SHARDS} per day)`,
      `the deployment's day is ${DEPLOYMENT_SPEND_SHARDS} shards`,
      `the ${DEPLOYMENT_SPEND_SHARDS} shards at about`,
      // The shared cache.
      `answers for ${SHARED_RESEARCH_MS / 3_600_000} hours (\`SHARED_RESEARCH_MS\`)`,
    ];
    expect(claims.filter((claim) => !page.includes(claim))).toEqual([]);
    expect(section('architecture/storage.md', 'Capacity at 10,000 sites')).toContain(
      `relink of a page linked from N pages | per ${RELINK_BATCH_PAGES} linkers`,
    );
  });
});
