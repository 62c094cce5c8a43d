/** The UTC day of an instant, `YYYY-MM-DD`: the period of a daily quota. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** When a daily quota counted on `at`'s UTC day starts again: the next UTC midnight. */
export function nextUtcMidnight(at: Date): string {
  const next = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
  return next.toISOString();
}
