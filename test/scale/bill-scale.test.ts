import { BULK_TARGETS, bulkNumbersPrice, rankCheckPrice } from '@cm/providers';
import { NICHE, simulateDay, WORKLOADS, type Day } from '../../bench/bill/day';
import { startTestStack, type TestStack } from '../helpers/local';

/*
 * The simulated day of npm run bill at BILL_SCALE_SITES sites sharing competitors, keywords and research
 * questions as sites in one niche do (bench/bill/day.ts#NICHE), through the real handlers with the
 * sandbox charging list prices: the provider calls each tool's ledger has, and what they cost. 10 sites
 * (one niche) by default: the sandbox's backlink profiles, rank checks and research take the machine's
 * CPU, 2-3 s a site here (a day of 20 sites took 61 s), so 1,000 sites would take most of an hour; and
 * what sharing saves is the same per niche at any number of niches (no two niches share anything).
 */

const SITES = Number(process.env.BILL_SCALE_SITES ?? 10);
const NICHES = SITES / NICHE.sites;
const [ISSUE] = WORKLOADS;
const { competitors, keywords, research } = ISSUE!;

/** List prices (the sandbox's): a web research. */
const RESEARCH_USD = 0.0212;
/** The domains the sites monitor: each site's own, and its niche's competitors (none shared across niches). */
const DOMAINS = NICHES * (NICHE.sites + NICHE.competitors);
/** Their numbers' bill: full bulk batches, then the rest (a plan's block of 100 sites fills them in turn). */
const NUMBERS_USD =
  Math.floor(DOMAINS / BULK_TARGETS) * bulkNumbersPrice(BULK_TARGETS) +
  (DOMAINS % BULK_TARGETS > 0 ? bulkNumbersPrice(DOMAINS % BULK_TARGETS) : 0);

/**
 * Each tool's ledger lines of the day after the scheduled work's first, those answered from the shared
 * cache, and what they cost: a domain's daily numbers in one bulk batch for every site (each row paid
 * once, by the first site of the block monitoring it, the other sites' lines cached at $0); a keyword's
 * rank check one task for the sites tracking it; a research question paid once a day for the niche.
 */
const EXPECTED = {
  monitor: {
    calls: SITES * (1 + competitors),
    cached: SITES * (1 + competitors) - DOMAINS,
    usd: NUMBERS_USD,
  },
  rank_tracking: {
    calls: SITES * keywords,
    cached: SITES * keywords - NICHES * NICHE.keywords,
    usd: NICHES * NICHE.keywords * rankCheckPrice(20),
  },
  research: {
    calls: SITES * research,
    cached: SITES * research - NICHES * NICHE.questions,
    usd: NICHES * NICHE.questions * RESEARCH_USD,
  },
};

let t: TestStack;
let day: Day;
beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_LIST_PRICES: '1', SANDBOX_RESEARCH_MS: '10' } });
  day = await simulateDay(t, SITES, ISSUE!);
  console.log(JSON.stringify({ bill_scale: 'day', sites: SITES, ledger: day.ledger, capacity: day.capacity }));
}, 600_000);
afterAll(() => t?.stop());

it.each(Object.entries(EXPECTED))(
  `a day of ${SITES} sites sharing competitors, keywords and questions: %s's ledger lines, cached ones and cost at list prices`,
  (tool, expected) => {
    const line = day.ledger[tool]!;
    expect({ calls: line.calls, cached: line.cached_calls }).toEqual({
      calls: expected.calls,
      cached: expected.cached,
    });
    expect(line.cost_usd).toBeCloseTo(expected.usd, 6);
  },
);

it('research costs a question what its providers charge for it, once, however many sites ask', () => {
  const paid = day.ledger.research!.calls - day.ledger.research!.cached_calls;
  expect(day.ledger.research!.cost_usd / paid).toBeCloseTo(RESEARCH_USD, 6);
});
