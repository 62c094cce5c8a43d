import {
  BREAKER,
  CONSENT_KEY_ATTEMPTS,
  KEYWORD_MAX_CHARS,
  LIMITS,
  QUEUES,
  RATE_RULES,
  RELINK_BATCH_PAGES,
} from '@cm/contract';
import { NEWER_WALK, SHARED_RESEARCH_MS } from '@cm/core';
import { KEY_CACHE_MS } from '@cm/runtime';
import { RECURSIVE_LOOP_LIMIT, ROUTE_TIMEOUT_MS } from '@cm/local';
import { SITES_PER_PLAN } from '@cm/tools';
import { HEAVY_TENANTS } from '../../infra/constructs/throttles';
import { RELATED_CARDS_MAX } from '../../packages/core/src/render';
import { RELINK_MAX_BATCHES } from '../../packages/publishing/src/relink';
import { INLINE_LIMIT_BYTES } from '../../packages/store/src/codec';
import { KEYWORD_HOLDERS_READ } from '../../packages/store/src/primary-keywords';
import { DEPLOYMENT_SPEND_SHARDS } from '../../packages/store/src/keys';
import { RESEARCH_KEEP_SECONDS } from '../../packages/store/src/research-records';
import { LEDGER_KEEP_SECONDS } from '../../packages/store/src/usage';
import { COUNTED_REQUESTS } from '../helpers/request-counts';
import { constantIn, expectOnlyFigures, listed, prose, section, thousands, type FiguresWhy } from './doc-text';

/*
 * docs/architecture/storage.md's figures: each claim below is a phrase made from the code's constants, and
 * the page states no other figure unless it is listed below as one the code's constants do not make, with
 * why (a count a test makes, AWS's quota, a measurement), so a setting changed in the code and not on the
 * page, or a figure changed or added on the page alone, fails here.
 */
const page = prose('architecture/storage.md');
const days = (seconds: number) => seconds / 86_400;
const BACKLINKS = 'packages/store/src/backlinks.ts';
const FAILED_RUNS_KEPT = constantIn('packages/store/src/ranks.ts', 'FAILED_RUNS_KEPT');
const SHARED_KEEP_DAYS = days(constantIn('packages/store/src/shared.ts', 'KEEP_SECONDS'));
const publish = RATE_RULES.find((rule) => rule.name === 'publish-per-key')!;
const publishPerSecond = publish.limit / publish.windowSeconds;

/** The page's figures its claims do not make, each with why, in the page's order. */
const NOT_THE_CODE: FiguresWhy = [
  // Item types.
  [
    "DynamoDB's key limits, AWS's, and where keyText puts a text's digest in their place",
    [
      '2048 bytes of a partition key, 1024 of a sort key',
      'UTF-8 is over 1024 bytes',
      'over 1024 bytes: its digest)',
      'over 1024 bytes, its digest)',
    ],
  ],
  [
    "the contract's bounds of the fields that name keys, which docs/api/limits.md states",
    [
      'a category or topic 200, a domain 253, a page id 20',
      '`qst_` and 16 characters',
      "a question's first 20 topics at most",
    ],
  ],
  ["the spec's scale of a page's links", ['at 10,000 links or more']],
  [
    "the history's paging, in packages/store/src/ranks.ts: not compared here",
    [
      '`Limit` N + 8',
      'when more than 8 claims sit among the newest items',
      "at most 6 pages of a partition's ~400 items",
    ],
  ],
  [
    "items' sizes, measured",
    [
      'A few kilobytes at top 20, about 10 at top 100',
      'at most 32 windows of 4 counts (about 3 KB of JSON with every day of a month counted)',
      'at most about 15 KB at top 100',
    ],
  ],
  [
    "an AI Overview's references: about 13 as Google cites (issue 53), each URL about 100 bytes; at most 20 of 1,024 characters and their domains",
    ['(about 1–2 KB as Google cites, 21 KB at most)', "the AI Overview's references aside (21 KB at most)"],
  ],
  [
    "expiries their callers compute inline (a quota, the deployment's day in budgets.ts): not compared here",
    ['Expires 2 days later', 'Expires 3 days later'],
  ],
  // | authenticate a key | 2 GetItems, the key's then
  [
    "the code's requests as read from it; no test counts this row",
    ['2 GetItems', 'then cached for 5 s in the container'],
  ],
  // | authenticate an OAuth access token | 1 GetItem o
  ["the first of the token's requests (claimed below)", ['1 GetItem of the token', '2 round trips,']],
  // | publish with a `primary_keyword` |
  [
    "the code's requests as read from it; the test counts the case without other pages",
    ["+ 1 BatchGetItem of the other pages' states"],
  ],
  // | publish, sections changed (a new article with a
  [
    "the code's requests as read from it; no test counts this row",
    ['+ 1 BatchWriteItem of section items', 'and 1 UpdateItem saying the items hold them', '+ 1 UpdateItem'],
  ],
  [
    "the page schedule's requests as read from packages/store/src/schedules.ts; a test counts the totals",
    [
      '+ 1 BatchWriteItem of its scheduled changes',
      '1 GetItem (its cursor), 1 Query per minute',
      'per change due, 1 conditional UpdateItem of the page',
      '1 BatchWriteItem removing the change',
      'Expires 7 days past its time',
    ],
  ],
  // | publish, links changed | + 1 Query of the page's
  [
    "the code's requests as read; 10,000 links counted by test/scale/publish-scale.test.ts",
    [
      "+ 1 Query of the page's link items",
      '25 a request',
      '8 in flight',
      'and 1 UpdateItem saying the index holds them',
      '10,000 links',
      'about 800 batch writes and 100 batch reads',
    ],
  ],
  // | publish that changes the content | + 2 requests
  [
    "the code's requests as read from it; test/e2e/revisions.test.ts counts the first two",
    [
      "1 PutItem of the revision of the version it replaced and 1 Query of the page's revision keys",
      '(+ 1 BatchWriteItem',
      '+ 1 Query of its chunks and 1 BatchWriteItem of them',
    ],
  ],
  // | republish of the live page's very same document
  [
    "the code's requests as read from it; no test counts this row",
    ["document (a retry) | + 1: the publish's UpdateItem"],
  ],
  // | a later listing page, the listings' sitemap, a month with nothing in `gsi6`
  [
    "the code's requests as read from it; no test counts these",
    [
      '+ 1 Query per page type, in parallel,',
      'A later page: + 1 Query',
      '1 Query of 1 item per page type of',
      'as its route reads it: 2 + 1 Queries, and per category or topic 1 Query and 1 BatchGetItem',
    ],
  ],
  // | list pages | 1 Query on `gsi1` or `gsi2` |
  ["the code's requests as read from it; no test counts this row", ['1 Query on `gsi1` or `gsi2`']],
  // | notify | 1 conditional UpdateItem that needs no
  [
    "the code's requests as read from it; no test counts this row",
    [
      '1 conditional UpdateItem that needs no read',
      '+ 1 UpdateItem taking back its relink mark when the live state did not change and no relink was owed',
      '1 GetItem when refused',
    ],
  ],
  // | visitor page | 1 Query (the page, its chunks, an
  [
    "counted by test/e2e/visitor.test.ts 'shows related pages as cards with their titles\u2026'",
    [
      'visitor page | 1 Query',
      'and the first time a container shows the site in 60 s 1 GetItem of the site',
      '+ 1 BatchGetItem of the linked pages and the first 12 related pages',
    ],
  ],
  // | the home, the index of questions | 1 Query of `g
  [
    "counted by test/scale/listings-scale.test.ts 'answers the home with one Query per page type\u2026'",
    ['1 Query of `gsi5` per page type', '2 and 1'],
  ],
  // | a category or topic page | 1 Query of the sectio
  [
    "counted by test/e2e/site-listings.test.ts 'reads a section with one Query and one batch read'",
    ["1 Query of the section's items and 1 BatchGetItem of their page items"],
  ],
  // | sitemap index | 1 Query of 1 item per month sinc
  [
    "counted by test/e2e/site-files.test.ts 'reads one item per month and type for the index\u2026'",
    ['1 Query of 1 item of `gsi6` per month since the site began', '8 in flight'],
  ],
  // | a month's sitemap | Queries of `gsi5` over the m
  [
    "counted by test/scale/listings-scale.test.ts 'answers the sitemap index with one small Query per month\u2026'",
    ['1 MB each', 'at most 5 for its 50,000 URLs'],
  ],
  // | the feed | 1 Query of `gsi5` (20 articles) |
  [
    "counted by test/scale/listings-scale.test.ts 'answers the feed with one Query'",
    ['1 Query of `gsi5`', '20 articles'],
  ],
  // | list pages with `suppressed_links=true` | + 1 Qu
  [
    "the code's requests as read from it; no test counts this row",
    [
      '+ 1 Query of link items per listed page',
      '10 at a time',
      'and 1 BatchGetItem for page items from before link items',
    ],
  ],
  // | relink, planning | 1 Query per 1,000 linking pag
  [
    "the code's requests as read from it; no test counts this row",
    ['1 Query per 1,000 linking pages', 'and 1 UpdateItem when it finishes the relink'],
  ],
  // | relink, per batch of 100 linking pages | 1 GetIt
  [
    "the code's requests as read from it; no test counts this row",
    [
      '1 conditional UpdateItem per linking page',
      '+ 1 UpdateItem of its `visible_at` when it changed what readers see',
      '1 conditional UpdateItem (the batch done',
      '+ 1 GetItem when it was counted before',
      'and 1 UpdateItem when it finishes the relink',
    ],
  ],
  // | take or free a research place, take a refresh |
  ["the code's requests as read from it; no test counts this row", ['take a refresh | 1 conditional UpdateItem']],
  // | a web, reddit or url research call | a new job:
  [
    'counted on the local stack with the sandbox at list prices; history',
    [
      '9 requests',
      'before jobs were joined, 7',
      'An identical call while the job is in process: 4',
      'Answered from storage: 3',
      'Answered from the shared cache: 5',
      "1 BatchGetItem of the query's item",
      '1 BatchGetItem of its shared findings',
      '1 conditional UpdateItem of its claim',
      '1 PutItem of the job',
      'then 1 GetItem per poll of it',
      '2 GetItems of the job',
      'where it was 7 and a second job',
      '+ 1 failed UpdateItem and 1 BatchGetItem',
      "1 BatchWriteItem of the site's record",
      '1 BatchWriteItem of the ledger line',
    ],
  ],
  // | a paid provider call's budget | the site's limit
  [
    "counted by test/integration/budgets.test.ts 'reserves a paid call in 2 requests on each counter\u2026'; history, and AWS's write units",
    [
      '1 GetItem per tool call',
      '1 conditional UpdateItem of the counter then 1 PutItem of the hold',
      '1 DeleteItem of the hold then 1 UpdateItem of the counter',
      'That is 4 requests each way with a cap',
      '2 without',
      'in 2 round trips',
      'each write of an item under 3 KB',
      "1 PutItem of the call's pending ledger line",
      'Before holds had items of their own it was 2 each way',
      '1 without a cap',
      'in 1 round trip',
      'about 1 write unit per 15 reservations in flight',
      "and the deployment's item refused every write at about 8,500",
      '+ 1 BatchGetItem of the 8 shards and 1 conditional UpdateItem per shard the estimate is placed on',
      '1 GetItem and 1 Query of its expired holds',
      'the BatchGetItem and 8 Queries',
      'then 1 DeleteItem',
      '1 UpdateItem and 1 PutItem of its mark per expired hold charged at its estimate',
      'at most 25 per partition',
      'adds 1 DeleteItem of the mark',
    ],
  ],
  // | `serp_landscape` on a topic | a handful of Queri
  [
    "counted by test/scale/landscape-scale.test.ts 'answers a topic of 500 committed keywords\u2026'",
    ['a handful of Queries and BatchGetItems of 100', 'a test counts them for 500'],
  ],
  // | a provider's breaker | closed: 1 GetItem per pro
  [
    "the code's requests as read from it; no test counts this row",
    [
      'Per failure 1 conditional UpdateItem',
      '2 or 3 when it starts a window or opens the breaker',
      'the half-open probe 1',
      'closing 1',
    ],
  ],
  // | the monitoring schedule | 1 GetItem (the site se
  [
    "the code's requests as read; test/scale/monitoring-scale.test.ts runs a day's schedule",
    ['1 GetItem', 'then 1 SendMessage per 100 sites'],
  ],
  // | a monitoring plan (100 sites) | 1 BatchGetItem;
  [
    "the code's requests as read; test/scale/monitoring-scale.test.ts runs a day's schedule",
    [
      '1 BatchGetItem; 1 Query per site',
      '1 BatchGetItem per 100 monitored domains',
      '1 conditional PutItem per domain not cached',
      '3 provider requests per 100 claimed domains',
      '1 BatchWriteItem per 25',
      'and 1 per paying site',
      '2 budget writes per paying site when priced',
      'then 1 SendMessage per site',
    ],
  ],
  // | a site's monitoring run | 1 GetItem (the site),
  [
    "the code's requests as read; test/scale/monitoring-scale.test.ts runs a day's schedule",
    [
      '1 Query (its active competitors)',
      '1 conditional PutItem per domain',
      'at most 11',
      "1 BatchGetItem of the shared numbers and 1 of the day's and the week before's snapshot keys",
      '88 for 11 domains',
      '1 BatchWriteItem of its ledger lines and 1 of its snapshots',
      '25 each per request',
      'then 1 reservation and 1 settle for the whole run',
    ],
  ],
  // | a monitoring plan's rank checks | + 1 SendMessag
  ["the code's requests as read from it; no test counts this row", ['+ 1 SendMessage per site that tracks rankings']],
  // | a site's rank checks | 1 GetItem (the site), 1 c
  [
    "the code's requests as read; measured by test/scale/rank-scale.test.ts, which bounds the requests a site",
    [
      '1 consistent Query',
      'per due topic 1 GetItem and 2 Queries',
      'and 1 BatchGetItem of its keywords',
      "+ 2 BatchGetItems for its pages' keywords",
      'per due page 1 GetItem and 2 BatchGetItems',
      '1 Query (its competitors)',
      '1 reservation, 1 settle',
      "1 BatchGetItem of the keywords' stored SERPs",
      '+1 BatchGetItem of published pages when it has some',
      'then 1 conditional PutItem per keyword',
      '1 BatchGetItem of their SERPs in the shared cache per 100',
      '1 conditional PutItem per keyword the cache did not answer',
      '1 BatchWriteItem of ledger lines per 25 checks',
      'a refused one + 1 read of what is left and one more try',
      "1 SendMessage per post of 100 and per 100 checks awaited from another site's post",
      '1 UpdateItem per due scope',
      'Measured with a topic of 5 keywords',
      '25 requests',
    ],
  ],
  // | a post's collection | 1 BatchGetItem (what is st
  [
    "the code's requests as read from it; no test counts this row",
    [
      "a post's collection | 1 BatchGetItem",
      '1 BatchWriteItem of shared SERPs',
      '1 of rank rows and',
      '1 of SERP rows per 25 checks',
      '1 conditional PutItem per task that failed for good',
    ],
  ],
  // | an awaited collection (checks another site poste
  [
    "the code's requests as read from it; no test counts this row",
    [
      'posted) | 1 BatchGetItem',
      '1 BatchGetItem of the shared SERPs per 100',
      'per check not there yet 1 conditional PutItem',
      "+ 1 UpdateItem and 1 of the site's claim when it was given back",
      "then 1 SendMessage: the site's run again",
      'and 1 BatchWriteItem of its $0 ledger lines per 25',
    ],
  ],
  // | `serp_landscape` `history_days` | + 1 Query per
  [
    "counted by test/e2e/rank-tracking.test.ts 'reads the history with one Query per keyword's range of days…'; the history's paging as above; a row's size, measured",
    [
      '+ 1 Query per keyword',
      'its last N checks, `Limit` N + 8',
      'each time more than 8 claims sit among them',
      'a year of top-20 rows is about 1 MB',
      "1 BatchGetItem of the scope's published pages",
      'and for a topic or page 1 GetItem',
    ],
  ],
  ["the scale run's keywords (test/scale/landscape-scale.test.ts)", ['on a topic of 500 keywords']],
  // Capacity at 10,000 sites.
  [
    "the spec's scale, and AWS's default quotas: an on-demand table's, a partition's, Lambda's, API Gateway's",
    [
      '## Capacity at 10,000 sites What each path writes',
      'how fast it can go with 10,000 sites on one deployment',
      '40,000 read and 40,000 write units a second per table',
      'and 3,000 reads and 1,000 writes a second per partition',
      '1,000 concurrent Lambda executions',
      '10,000 requests a second per account on API Gateway',
      'ceiling at 10,000 sites',
      '1,000 write units a second',
      "then the site partition's 3,000 reads a second",
      "one page's item takes 1,000 small writes a second",
      'each about 1,000 writes a second: about 4,000 paid calls a second for the whole deployment',
      "a site's month counter takes 1,000 a second",
      'the 8 shards at about 4,000 paid calls a second',
    ],
  ],
  [
    'the items a path writes, and the requests of the round trips above, by the code as read: not compared here',
    [
      'links unchanged | 1: the page item',
      '2 items per added or removed link',
      '1 more page write',
      'reads are 1 Query (+ 1 BatchGetItem for a visitor page)',
      "the sitemap index reads 3 items per month of the site's life at most",
      '+ 1 write taking back a relink mark',
      '1 relink-run item',
      'and 1 hold item',
      '1 claim and 1 snapshot per',
      '1 ledger line per provider call or cached answer',
      '1 shared numbers item and its claim per distinct domain a day',
      '1 read and 100 messages',
      '100 BatchGetItems',
      'a numbers claim per distinct domain and 10,000 messages',
      '1 claim and 1 rank row per check',
      "and 1 SERP row for today's",
      '1 ledger line per check',
      '1 shared SERP and its claim per distinct',
      'the plans send 10,000 rank messages more',
    ],
  ],
  ['an estimate: a 10 KB page is 10 write units', ['so a site publishing 10 KB pages would top out near 100 a second']],
  [
    'counted and timed by test/scale/publish-scale.test.ts, or its estimate from the counts',
    [
      'a publish with 10,000 links to pages not published yet makes 1,200 BatchWriteItems',
      '200 BatchGetItems and 9,992 UpdateItems',
      '16 s on the embedded DynamoDB on 2 cores',
      'of some 50,000 new links at once',
      '50 at once',
      '20 trials',
      'no 5xx',
    ],
  ],
  [
    "the sitemaps' limit of URLs a file, and a site's age: an example",
    [
      'a site that first publishes over 50,000 pages in one month',
      "its month's sitemap lists the first 50,000",
      'a site 10 years old has an index of 120 probes',
    ],
  ],
  [
    'the scale runs of test/scale/relink-scale.test.ts and test/scale/budget-scale.test.ts',
    ['5,000 linkers on the emulation', '20,000 reservations in flight', 'every item under 3 KB'],
  ],
  [
    "the relink planner's page of edges, as packages/publishing reads them: not compared here",
    ['the planner reads 1,000 edges a Query'],
  ],
  [
    "measured by test/scale/monitoring-scale.test.ts and test/scale/rank-scale.test.ts (a site's requests, a post's), at the load the row names",
    ['about 30 requests per site', '50 keywords a site', 'about 114 requests per site', '2.3 a check', '7 per post'],
  ],
  [
    "DataForSEO's rate limit, and its bulk request's three calls per 100 domains at the spec's scale",
    [
      "DataForSEO's 2,000 calls a minute",
      "the day's numbers are 3 bulk requests per 100 distinct domains",
      '3,300 for 110,000 domains',
      'under 2 minutes of the limit',
      'at most 10,000 posts and one free `task_get` per distinct SERP',
      '500,000 when no two sites share a keyword',
      'at under 1,000 a minute',
    ],
  ],
  ['the providers with a breaker: DataForSEO, Tavily, Bedrock', ['3 breaker items', '`BREAKER#<provider>` (3)']],
  // The shared cache.
  [
    "a cached answer's price, $0 (decisions.md)",
    ['get it for $0 with a `cached: true` ledger line', 'and a $0 ledger line'],
  ],
  ["the spec's sections", ['spec §4.3']],
  ["the SERP pull's depth, the provider's", ["the provider's top-20 organic results"]],
  [
    "items' sizes and write units, measured; AWS's list prices (us-east-1) and DataForSEO's; the issue's load",
    [
      'about 200 bytes',
      'about 3.5 KB',
      '- **Cost.** A SERP item is about 4 write units a day per keyword and locale pulled',
      'a metrics item 1 write unit and half a read unit',
      'us-east-1',
      '$0.625 per million write and $0.125 per million read units',
      'that is about $0.0000025 to keep a SERP that costs $0.0035 at DataForSEO',
      'and $0.0006 to keep the 1,000 keywords of a $0.075 search-volume call',
      'about $0.02 with the default model',
      '$0.044 at most',
      "At the issue's 5 research calls a site a day",
    ],
  ],
  [
    "DynamoDB's most keys a BatchGetItem and items a BatchWriteItem, and the cache's requests as read from the code",
    [
      '+ 1 BatchGetItem',
      '100 keys a request',
      'and + 1 PutItem per SERP the provider answered',
      '+ 1 PutItem',
      '+ 1 BatchWriteItem per 25 keywords',
      '+ 1 BatchGetItem of its seeds',
      '1 PutItem',
      "a call that its site's storage does not answer reads today's and yesterday's items in 1 BatchGetItem",
      '1 BatchWriteItem',
      'every miss pays 1 BatchGetItem of at most two items and every job 1 PutItem more',
    ],
  ],
  ['counted on the local stack', ['11 requests where it was 10', '9 requests']],
  [
    "the synthesis's most tokens, the provider call's setting: not compared here",
    ['the synthesis answers at most 4,096 tokens'],
  ],
];

describe('docs/architecture/storage.md', () => {
  it("states the code's settings (key sizes, chunks, caps, shards, caches, batches, expiries) and no other figure", () => {
    const claims = [
      // Item types.
      `a keyword ${KEYWORD_MAX_CHARS} characters`,
      `a part of a document still over ${INLINE_LIMIT_BYTES / 1024} KB gzipped`,
      `\`SEM#research\` is the global cap of ${LIMITS.concurrentResearch}; \`SEM#competitors#<site>\` has a site's places for ${LIMITS.activeCompetitors} active competitors`,
      `split over ${DEPLOYMENT_SPEND_SHARDS} shards (\`0\`…\`${DEPLOYMENT_SPEND_SHARDS - 1}\`, a partition each)`,
      `(the failures of the current ${BREAKER.windowMs / 1000} s window)`,
      `its last ${FAILED_RUNS_KEPT} runs that failed`,
      `the results each check asks for (default ${LIMITS.rankDepthDefault})`,
      `The newest ${LIMITS.revisionsKept} are kept`,
      `each expires ${LIMITS.revisionsKeptDays} days after it was kept`,
      `a part of a revision's document over ${INLINE_LIMIT_BYTES / 1024} KB gzipped`,
      `Expires ${LIMITS.rankRowsKeptDays} days after its day`,
      `expires ${LIMITS.searchDaysKept} days after the day`,
      `at most ${LIMITS.aiOverviewReferencesMax} references of at most ${thousands(LIMITS.aiOverviewUrlMax)} characters`,
      `Expires ${days(LEDGER_KEEP_SECONDS)} days after the call`,
      `(host, URL count, the first ${constantIn('packages/publishing/src/indexnow.ts', 'LEDGER_URLS')} URLs`,
      `(one Query per ${thousands(LIMITS.indexNowUrlsPerRequest)})`,
      `A mark ${constantIn('packages/store/src/indexnow.ts', 'MESSAGE_LOST_MS') / 60_000} minutes old`,
      `Found by id alone. Expires after ${days(constantIn('packages/store/src/jobs.ts', 'KEEP_SECONDS'))} days`,
      `Expires ${days(RESEARCH_KEEP_SECONDS)} days after the research`,
      `Expires ${days(constantIn('packages/store/src/relinks.ts', 'KEEP_SECONDS'))} days after its last change`,
      `Expires ${SHARED_KEEP_DAYS} days after it was fetched unless its kind says otherwise`,
      `taken as a monitoring claim is. Expires after ${SHARED_KEEP_DAYS} days`,
      `the table's TTL deletes it ${SHARED_KEEP_DAYS} days after it was fetched`,
      `it expires ${SHARED_KEEP_DAYS} days after the fetch`,
      `Expires after ${days(constantIn(BACKLINKS, 'KEEP_SECONDS'))} days`,
      `Expires ${days(constantIn(BACKLINKS, 'CLAIM_KEEP_SECONDS'))} days after it is taken`,
      `The waiting call reads it every ${constantIn('packages/runtime/src/mcp/approval.ts', 'POLL_MS') / 1000} s`,
      `${days(constantIn('packages/runtime/src/oauth/adapter.ts', 'UNUSED_CLIENT_SECONDS'))} days until a sign-in uses it`,
      `from an address in a ${CONSENT_KEY_ATTEMPTS.windowSeconds / 60}-minute window`,
      // Round trips.
      `then cached for ${KEY_CACHE_MS / 1000} s in the container`,
      `then cached ${KEY_CACHE_MS / 1000} s (the key's lookup ${KEY_CACHE_MS / 1000} s on its own); ${COUNTED_REQUESTS.tokenKeyCached} when the container looked the key up in the last ${KEY_CACHE_MS / 1000} s`,
      // Round trips the e2e tests count (test/helpers/request-counts.ts).
      `(the token names the site): ${COUNTED_REQUESTS.tokenFirstSeen} requests in`,
      `| publish, links and sections unchanged (or none) | ${COUNTED_REQUESTS.publishUnchanged} UpdateItem (`,
      `| read a page by id or slug | ${COUNTED_REQUESTS.readById} Query (`,
      `| + ${COUNTED_REQUESTS.publishChangedContent - COUNTED_REQUESTS.publishUnchanged} requests: 2 in the same round trip,`,
      `deleting those past the newest ${LIMITS.revisionsKept})`,
      `before the page's UpdateItem: a new page without links is ${COUNTED_REQUESTS.publishScheduled} requests`,
      `| publish with a \`primary_keyword\` | + ${COUNTED_REQUESTS.publishPrimaryKeyword - COUNTED_REQUESTS.publishUnchanged} requests in one round trip after the page's UpdateItem: 1 PutItem of its keyword's item and 1 Query of the keyword's items (at most ${KEYWORD_HOLDERS_READ + 1}) (+ 1 DeleteItem of the item of the keyword it named before, when another): ${COUNTED_REQUESTS.publishPrimaryKeyword} requests for a page`,
      `1 UpdateItem moving the cursor: ${COUNTED_REQUESTS.scheduleSweepIdle} requests when nothing is due`,
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
      `its document inline up to ${INLINE_LIMIT_BYTES / 1024} KB gzipped`,
      `per ${RELINK_BATCH_PAGES} linkers: ${RELINK_BATCH_PAGES} link items`,
      `and sends 1 message per ${RELINK_BATCH_PAGES}; \`relink-pages\` runs ${QUEUES['relink-pages'].maxConcurrency} batches at once`,
      `runs: about 30 requests per site at ${QUEUES.monitor.maxConcurrency} at once`,
      `two claims), ${QUEUES.rank.maxConcurrency} at once; collection:`,
      `of 50, ${QUEUES['rank-collect'].maxConcurrency} at once |`,
      `for at most ${LIMITS.historyKeywordsMax} keywords, ${constantIn('packages/tools/src/rank-history.ts', 'QUERIES_AT_ONCE')} at a time`,
      `the ${NEWER_WALK} places before it`,
      `the ${NEWER_WALK} items before it`,
      // The shared cache.
      `answers for ${SHARED_RESEARCH_MS / 3_600_000} hours (\`SHARED_RESEARCH_MS\`)`,
    ];
    expectOnlyFigures(page, claims, listed(NOT_THE_CODE));
    expect(section('architecture/storage.md', 'Capacity at 10,000 sites')).toContain(
      `relink of a page linked from N pages | per ${RELINK_BATCH_PAGES} linkers`,
    );
  });
});
