import type { Intent, KeywordMetrics } from '@cm/contract';
import { between, twoSignificant, unit } from './derive';

const INTENT_WORDS: ReadonlyArray<[Intent, RegExp]> = [
  ['transactional', /\b(buy|price|prices|cheap|deal|deals|discount|coupon|order|shop|sale|for sale|near me)\b/],
  ['commercial', /\b(best|top|review|reviews|vs|versus|compare|comparison|alternative|alternatives)\b/],
  ['navigational', /\b(login|sign in|official|website|app|\.com)\b/],
  ['informational', /\b(how|what|why|when|who|guide|tutorial|tips|ideas|meaning|definition|examples?)\b/],
];

/** Long-tail phrases the data has nothing for: over six words, or a word of more than 15 letters. */
export const sandboxHasNoData = (keyword: string): boolean => {
  const words = keyword.split(' ');
  return words.length > 6 || words.some((w) => w.length > 15);
};

function intentOf(keyword: string): Intent {
  for (const [intent, words] of INTENT_WORDS) if (words.test(keyword)) return intent;
  const u = unit(keyword, 'intent');
  return u < 0.6 ? 'informational' : u < 0.8 ? 'commercial' : u < 0.92 ? 'transactional' : 'navigational';
}

/** Metrics derived from the keyword and locale: shorter phrases have more searches, buying intent costs more. */
export function sandboxMetrics(keyword: string, locale: string): KeywordMetrics | null {
  if (sandboxHasNoData(keyword)) return null;
  const salt = `${locale}\n${keyword}`;
  const words = keyword.split(' ').length;
  const intent = intentOf(keyword);
  // log10 of the volume: head terms in the thousands to ~200k, each extra word about five times fewer.
  const exponent = Math.min(5.3, Math.max(1, 4.6 - (words - 1) * 0.7 + (unit(salt, 'volume') - 0.5) * 1.6));
  const buying = intent === 'transactional' || intent === 'commercial';
  const competition = Math.min(1, Math.round((unit(salt, 'competition') * 0.7 + (buying ? 0.3 : 0)) * 100) / 100);
  const cpc = (buying ? 1.5 : 0.1) + unit(salt, 'cpc') * (buying ? 10 : 2.5);
  return {
    keyword,
    volume: twoSignificant(10 ** exponent),
    cpc_usd: Math.round(cpc * 100) / 100,
    competition,
    intent,
  };
}

const PREFIXES = [
  'best',
  'cheap',
  'how to choose',
  'top',
  'buy',
  'what is',
  'how to use',
  'affordable',
  'professional',
  'beginner',
];
const SUFFIXES = [
  'review',
  'reviews',
  'guide',
  'for beginners',
  'near me',
  'price',
  'vs alternatives',
  'ideas',
  'tips',
  'examples',
  'brands',
  'online',
  'for sale',
  'comparison',
  'checklist',
  'mistakes',
  'benefits',
  'cost',
  'kit',
  'deals',
];

/** Ideas from the seeds and common modifiers, highest volume first, each with metrics. */
export function sandboxIdeas(seeds: readonly string[], locale: string, limit: number): KeywordMetrics[] {
  const seen = new Set(seeds);
  const ideas: KeywordMetrics[] = [];
  for (const seed of seeds) {
    const variants = [...PREFIXES.map((p) => `${p} ${seed}`), ...SUFFIXES.map((s) => `${seed} ${s}`)];
    for (const variant of variants) {
      if (seen.has(variant)) continue;
      seen.add(variant);
      const metrics = sandboxMetrics(variant, locale);
      if (metrics) ideas.push(metrics);
    }
  }
  return ideas.sort((a, b) => (b.volume ?? 0) - (a.volume ?? 0) || a.keyword.localeCompare(b.keyword)).slice(0, limit);
}

/** A position in the top `depth` derived from the keyword and domain, or null when the domain does not rank. */
export function sandboxRank(keyword: string, domain: string, share: number, depth: number): number | null {
  if (unit(`${keyword}\n${domain}`, 'ranks') >= share) return null;
  return between(`${keyword}\n${domain}`, 'position', 1, depth);
}
