import type { Device } from './types';

/* How numbers, money and dates read in the app. */

const integer = new Intl.NumberFormat('en-US');
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const decimal1 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });

export const fmtInt = (n: number | null | undefined): string =>
  n === null || n === undefined ? '—' : integer.format(n);
export const fmtNum = (n: number | null | undefined): string =>
  n === null || n === undefined ? '—' : decimal.format(n);
/** A share 0–1 as a percentage. */
export const fmtShare = (n: number | null | undefined): string =>
  n === null || n === undefined ? '—' : percent.format(n);
/** A figure 0–100 (visibility) as a percentage. */
export const fmtPct = (n: number | null | undefined): string =>
  n === null || n === undefined ? '—' : `${decimal1.format(n)}%`;
/** Provider costs are fractions of a cent: up to 6 decimals, never fewer than 2. */
export const fmtUsd = (n: number | null | undefined): string =>
  n === null || n === undefined
    ? '—'
    : `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })}`;
/** A timestamp as `2026-11-21 09:30 UTC`: the API's days and quotas are UTC. */
export const fmtTime = (iso: string | null | undefined): string =>
  iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '—';
export const fmtDay = (iso: string | null | undefined): string => (iso ? iso.slice(0, 10) : '—');

/** "1 call", "3 calls". */
export const plural = (n: number, word: string, many = `${word}s`): string =>
  `${integer.format(n)} ${n === 1 ? word : many}`;

/** Dollar amounts kept to a millionth, as the API keeps them, so a difference of two never shows float dust (or -$0.00). */
export const roundUsd = (usd: number): number => Math.round(usd * 1e6) / 1e6;

/** How money the sandbox charged at list prices (SANDBOX_LIST_PRICES=1) is named everywhere: it is never billed money. */
export const SIMULATED = 'simulated at list prices (sandbox), not billed';

/** What a paid result says of its cost and the budget it left (ToolMeta of the contract). */
export interface CostMeta {
  cost_usd: number;
  data_source: string;
  simulated?: true;
  budget?: { remaining_usd: number | null; window: 'day' | 'month' | null };
}

/** What a result's cost says, with the sandbox named for what it is, and what its budget window has left. */
export function costInWords({ cost_usd, data_source, simulated, budget }: CostMeta): string {
  const cost = `Cost ${fmtUsd(cost_usd)}`;
  const said = simulated
    ? `${cost} (${SIMULATED}).`
    : data_source === 'sandbox'
      ? `${cost} (sandbox: simulated, free).`
      : data_source === 'database'
        ? `${cost} (no provider call).`
        : `${cost} (data from ${data_source}).`;
  const left =
    budget && budget.remaining_usd !== null
      ? ` Budget left ${budget.window === 'month' ? 'this month' : 'today'}: ${fmtUsd(budget.remaining_usd)}.`
      : '';
  return said + left;
}

/** A device of rank checks, as the app names it. */
export const DEVICE_NAMES: Record<Device, string> = { desktop: 'Desktop', mobile: 'Mobile' };

/** A change with its sign: `+12`, `−3` (a true minus), `0`; `—` when there is none. */
export const fmtChange = (n: number | null | undefined, format: (n: number) => string = fmtNum): string =>
  n === null || n === undefined ? '—' : n > 0 ? `+${format(n)}` : n < 0 ? `−${format(-n)}` : format(0);
/** A change of a share 0–1 (a CTR) in percentage points. */
export const fmtPoints = (n: number | null | undefined): string =>
  fmtChange(n === null || n === undefined ? n : n * 100, (v) => `${decimal.format(v)} pts`);
