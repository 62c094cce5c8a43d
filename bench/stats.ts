/** The benchmark's summaries of its samples. */

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export const median = (values: readonly number[]) => quantile(values, 0.5);

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
