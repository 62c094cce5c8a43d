import './env';
import { startTestStack } from '../test/helpers/local';
import { simulateDay, WORKLOADS, type Day } from './bill/day';
import { monthOf, type Bill } from './bill/model';
import { stackShape } from './bill/template';

/*
 * `npm run bill`: a month's bill at 1,000 and 10,000 sites for each workload of bill/day.ts, from a
 * simulated day of BILL_SITES sites (default 100, a multiple of 10) on the local stack with the sandbox
 * charging list prices, and the synthesized template. It prints a table per workload, then one JSON
 * line. docs/performance.md#a-months-bill-at-1000-and-10000-sites says what each line counts.
 */

const SITES = Number(process.env.BILL_SITES ?? 100);
const AT = [1_000, 10_000];

const lineUsd = (bill: Bill, service: string) => bill.lines.find((l) => l.service === service)?.usd ?? 0;
const usd = (n: number) => `$${n.toLocaleString('en-US', { maximumFractionDigits: n < 10 ? 2 : 0 })}`;

function print(day: Day, bills: Bill[]) {
  console.log(
    `\n${day.workload.name}: a day of ${day.sites} sites, priced at ${bills.map((b) => b.sites).join(' and ')}`,
  );
  const services = bills[0]!.lines.map((l) => `${l.kind === 'provider' ? 'provider: ' : ''}${l.service}`);
  const width = Math.max(...services.map((s) => s.length)) + 2;
  console.log(
    `${'line'.padEnd(width)}${bills.map((b) => `${b.sites} sites`.padStart(16)).join('')}${'a site'.padStart(12)}`,
  );
  bills[0]!.lines.forEach((line, i) => {
    const cells = bills.map((b) => usd(b.lines[i]!.usd).padStart(16)).join('');
    console.log(`${services[i]!.padEnd(width)}${cells}${usd(bills[0]!.lines[i]!.usd / bills[0]!.sites).padStart(12)}`);
  });
  for (const [label, pick] of [
    ['AWS', (b: Bill) => b.awsUsd],
    ['providers', (b: Bill) => b.providerUsd],
    ['total', (b: Bill) => b.totalUsd],
  ] as const)
    console.log(
      `${label.padEnd(width)}${bills.map((b) => usd(pick(b)).padStart(16)).join('')}${usd(pick(bills[0]!) / bills[0]!.sites).padStart(12)}`,
    );
  if (day.failedDeliveries > 0)
    console.log(
      `${day.failedDeliveries} deliveries failed and came again: runs waiting for shared data another run fetches, and any failure (whose calls the ledger may miss)`,
    );
  console.log(
    `monitoring + rank tracking a site: ${usd(bills[0]!.monitoringAndRanksPerSiteUsd)} a month (goal: at most $3); research: $${bills[0]!.researchPerCallUsd.toFixed(4)} a call asked, $${bills[0]!.researchPerPaidCallUsd.toFixed(4)} a call the providers were paid for`,
  );
  for (const bill of bills)
    console.log(
      `research waiting for its jobs at ${bill.sites} sites: ${Math.round(bill.researchWaitSecondsADay).toLocaleString('en-US')} Lambda seconds a day, ${usd(lineUsd(bill, 'Lambda: research calls waiting for their jobs'))} a month, ${(
        (100 * lineUsd(bill, 'Lambda: research calls waiting for their jobs')) /
        lineUsd(bill, 'research')
      ).toFixed(1)}% of research's providers`,
    );
}

async function main() {
  if (SITES % 10 !== 0 || SITES <= 0) throw new Error('BILL_SITES must be a positive multiple of 10');
  const shape = stackShape();
  const results = [];
  for (const workload of WORKLOADS) {
    const t = await startTestStack({ env: { SANDBOX_LIST_PRICES: '1' } });
    try {
      const day = await simulateDay(t, SITES, workload);
      const bills = AT.map((sites) => monthOf(day, shape, sites));
      print(day, bills);
      results.push({ workload: workload.name, day, bills });
    } finally {
      await t.stop();
    }
  }
  console.log(JSON.stringify({ bill: 'content-api', at: new Date().toISOString(), simulated_sites: SITES, results }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
