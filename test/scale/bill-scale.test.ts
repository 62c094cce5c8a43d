import { simulateDay, WORKLOADS, type Day } from '../../bench/bill/day';
import { DAYS_A_MONTH } from '../../bench/bill/model';
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
const [ISSUE] = WORKLOADS;

/**
 * What a site's day costs at list prices, by tool, today ("before" issue 49's points 2, 3 and 5): every
 * site pays for each of its domains, checks and questions itself, whatever the others in its niche paid.
 */
const BEFORE = {
  monitor: { callsPerSite: 1 + ISSUE!.competitors + 1, usdPerSite: 1.18174 },
  rank_tracking: { callsPerSite: ISSUE!.keywords, usdPerSite: 0.0525 },
  research: { callsPerSite: ISSUE!.research, usdPerSite: 0.106 },
};

let t: TestStack;
let day: Day;
beforeAll(async () => {
  t = await startTestStack({ env: { SANDBOX_LIST_PRICES: '1', SANDBOX_RESEARCH_MS: '10' } });
  day = await simulateDay(t, SITES, ISSUE!);
  console.log(JSON.stringify({ bill_scale: 'day', sites: SITES, ledger: day.ledger, capacity: day.capacity }));
}, 600_000);
afterAll(() => t?.stop());

it('runs the day with no worker failing a message (the ledger would miss its calls)', () => {
  expect(day.failedDeliveries).toBe(0);
});

it.each(Object.entries(BEFORE))(
  `a day of ${SITES} sites sharing competitors: %s's ledger lines and cost at list prices`,
  (tool, expected) => {
    const line = day.ledger[tool]!;
    expect(line.calls).toBe(expected.callsPerSite * SITES);
    expect(line.cost_usd / SITES).toBeCloseTo(expected.usdPerSite, 6);
  },
);

it('monitoring and rank tracking together cost a site what the ledger says a month', () => {
  const perSiteMonth = ((day.ledger.monitor!.cost_usd + day.ledger.rank_tracking!.cost_usd) / SITES) * DAYS_A_MONTH;
  expect(perSiteMonth).toBeCloseTo((BEFORE.monitor.usdPerSite + BEFORE.rank_tracking.usdPerSite) * DAYS_A_MONTH, 4);
});
