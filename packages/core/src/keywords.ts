import { DEFAULT_LOCALE, Keyword, LIMITS, type Intent, type KeywordMetrics, type KeywordRow } from '@cm/contract';

/** How a keyword is stored and matched; the rule lives in the contract, which validates keywords mode's seeds by it. */
export { normalizeKeyword } from '@cm/contract';

/** Weight of each intent in the keyword score: closer to a purchase weighs more. */
export const INTENT_WEIGHTS: Record<Intent, number> = {
  transactional: 1.2,
  commercial: 1.1,
  informational: 1.0,
  navigational: 0.5,
};

/** Competition assumed for a keyword whose competition is unknown. */
const UNKNOWN_COMPETITION = 0.5;

/**
 * The keyword score that ranks a topic's keywords for list and analyze:
 * `volume × (1 − competition) × intent_weight`; 0 without volume.
 */
export function keywordScore(metrics: Pick<KeywordMetrics, 'volume' | 'competition' | 'intent'>): number {
  if (!metrics.volume) return 0;
  const competition = metrics.competition ?? UNKNOWN_COMPETITION;
  const weight = metrics.intent ? INTENT_WEIGHTS[metrics.intent] : 1;
  return Math.round(metrics.volume * (1 - competition) * weight * 100) / 100;
}

/** Locale precedence of get_keywords: the keyword row's locale, else the site's default, else WW/en. */
export const keywordLocale = (rowLocale?: string | null, siteLocale?: string | null): string =>
  rowLocale || siteLocale || DEFAULT_LOCALE;

/** The `n` keywords of highest score; ties keep their order. */
export function topByScore<T extends Pick<KeywordMetrics, 'volume' | 'competition' | 'intent'>>(
  rows: readonly T[],
  n: number,
): T[] {
  return rows
    .map((row, index) => ({ row, index, score: keywordScore(row) }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, n)
    .map((entry) => entry.row);
}

/** Whether a keyword has demand data: a positive volume (volume 0 means the data has nothing). */
export const hasVolume = <M extends Pick<KeywordMetrics, 'volume'>>(metrics: M): metrics is M & { volume: number } =>
  (metrics.volume ?? 0) > 0;

/**
 * spec §4.3 get_keywords rule 4: a keyword row checked before with no data (volume 0 and no other
 * metric) is not fetched again until its check is `noDataRecheckDays` old; then the data may have some.
 */
export function checkedWithoutData(
  row: Pick<KeywordRow, 'volume' | 'cpc_usd' | 'competition' | 'intent' | 'checked_at'>,
  now: Date,
): boolean {
  const empty = row.volume === 0 && row.cpc_usd === null && row.competition === null && row.intent === null;
  if (!empty || row.checked_at === null) return false;
  return now.getTime() - Date.parse(row.checked_at) < LIMITS.noDataRecheckDays * 86_400_000;
}

export interface RejectedSeed {
  /** Where the seed stood in `seeds`. */
  index: number;
  seed: string;
  reason: string;
}

/**
 * get_keywords' seeds, each judged on its own: a seed that is no keyword (empty, too long, too many
 * words) is rejected with why, and the others are still pulled.
 */
export function splitSeeds(seeds: readonly string[]): { accepted: string[]; rejected: RejectedSeed[] } {
  const accepted: string[] = [];
  const rejected: RejectedSeed[] = [];
  for (const [index, seed] of seeds.entries()) {
    const parsed = Keyword.safeParse(seed);
    if (parsed.success) accepted.push(parsed.data);
    else rejected.push({ index, seed, reason: parsed.error.issues.map((issue) => issue.message).join('; ') });
  }
  return { accepted, rejected };
}
