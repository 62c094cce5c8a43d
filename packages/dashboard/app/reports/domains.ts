/** A domain of a result, as the site, a tracked competitor, or another. */
interface Tracked {
  is_site: boolean;
  is_competitor: boolean;
}

/**
 * What a chart or table of domains shows: the site and every tracked competitor, then the others in the
 * result's order (strongest first) up to `max` in all.
 */
export function trackedFirst<T extends Tracked>(domains: readonly T[], max: number): T[] {
  const tracked = domains.filter((d) => d.is_site || d.is_competitor);
  const others = domains.filter((d) => !d.is_site && !d.is_competitor);
  return [...tracked, ...others.slice(0, Math.max(0, max - tracked.length))];
}
