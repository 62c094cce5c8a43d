/* Date arithmetic in UTC: quota days, reset times and monthly windows. */

/** The UTC day of an instant, `YYYY-MM-DD`: the period of a daily quota. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** When a daily quota counted on `at`'s UTC day starts again: the next UTC midnight. */
export function nextUtcMidnight(at: Date): string {
  const next = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
  return next.toISOString();
}

/** The first day (UTC) of the month `back` months before `now`'s. */
export const monthStart = (now: Date, back: number): Date =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));

/** `yyyy-mm` of a date, in UTC. */
export const monthOf = (date: Date): string => date.toISOString().slice(0, 7);
