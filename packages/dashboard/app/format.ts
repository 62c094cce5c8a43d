/* How numbers, money and dates read in the app. */

const integer = new Intl.NumberFormat('en-US');
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });

export const fmtInt = (n: number | null | undefined): string => (n === null || n === undefined ? '—' : integer.format(n));
export const fmtNum = (n: number | null | undefined): string => (n === null || n === undefined ? '—' : decimal.format(n));
/** A share 0–1 as a percentage. */
export const fmtShare = (n: number | null | undefined): string => (n === null || n === undefined ? '—' : percent.format(n));
/** Provider costs are fractions of a cent: up to 6 decimals, never fewer than 2. */
export const fmtUsd = (n: number | null | undefined): string =>
  n === null || n === undefined ? '—' : `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })}`;
/** A timestamp as `2026-11-21 09:30 UTC`: the API's days and quotas are UTC. */
export const fmtTime = (iso: string | null | undefined): string => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '—');
export const fmtDay = (iso: string | null | undefined): string => (iso ? iso.slice(0, 10) : '—');

/** "1 call", "3 calls". */
export const plural = (n: number, word: string, many = `${word}s`): string => `${integer.format(n)} ${n === 1 ? word : many}`;

/** What a result's cost says, with the sandbox named for what it is. */
export function costInWords(costUsd: number, dataSource: string): string {
  if (dataSource === 'sandbox') return `Cost ${fmtUsd(costUsd)} (sandbox: simulated, free).`;
  if (dataSource === 'database') return `Cost ${fmtUsd(costUsd)} (no provider call).`;
  return `Cost ${fmtUsd(costUsd)} (data from ${dataSource}).`;
}
