import type { Findings, JobMode } from '@cm/contract';
import { between, cycled, shuffled, unit } from './derive';

const ASPECTS = [
  'cost',
  'durability',
  'ease of use',
  'safety',
  'availability',
  'maintenance',
  'performance',
  'comfort',
  'fit',
  'support',
];
const WEB_DOMAINS = [
  'wikipedia.org',
  'nytimes.com',
  'theguardian.com',
  'consumerreports.org',
  'wired.com',
  'healthline.com',
  'bbc.co.uk',
  'forbes.com',
];
const SUBREDDITS = ['AskReddit', 'BuyItForLife', 'explainlikeimfive', 'Frugal', 'running', 'HomeImprovement'];

const slugOf = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60) || 'topic';

/**
 * Facts, opinions and sources derived from the query (and, in url mode, the page's address): the same
 * request always finds the same, each finding citing sources by id. It is sandbox data, labelled so.
 */
export function sandboxFindings(mode: JobMode, query: string, question: string | null, accessedAt: string): Findings {
  const subject =
    mode === 'url'
      ? (question ?? new URL(query).pathname.split('/').filter(Boolean).pop() ?? new URL(query).hostname)
      : query;
  const seed = `${mode}\n${query}\n${question ?? ''}`;
  const count = mode === 'url' ? 1 : between(seed, 'sources', 3, 5);
  const domains = shuffled(WEB_DOMAINS, seed);
  const sources = Array.from({ length: count }, (_v, i) => {
    const id = `src-${i + 1}`;
    if (mode === 'url')
      return { id, title: `${new URL(query).hostname}: ${subject}`, url: query, accessed_at: accessedAt };
    if (mode === 'reddit') {
      const sub = cycled(SUBREDDITS, between(seed, `sub-${i}`, 0, SUBREDDITS.length - 1));
      const post = Math.floor(unit(seed, `post-${i}`) * 36 ** 6).toString(36);
      return {
        id,
        title: `r/${sub}: ${subject}`,
        url: `https://www.reddit.com/r/${sub}/comments/${post}/${slugOf(subject)}/`,
        accessed_at: accessedAt,
      };
    }
    const domain = cycled(domains, i);
    return {
      id,
      title: `${subject} - ${domain}`,
      url: `https://www.${domain}/${slugOf(subject)}`,
      accessed_at: accessedAt,
    };
  });
  const aspects = shuffled(ASPECTS, seed);
  const cite = (i: number) => {
    const first = cycled(sources, i).id;
    const second = cycled(sources, i + 1).id;
    return first === second ? [first] : [first, second];
  };
  const facts = Array.from({ length: between(seed, 'facts', 3, 5) }, (_v, i) => ({
    text: `Sources on ${subject} name ${aspects[i]} as a deciding factor in ${between(seed, `share-${i}`, 20, 80)}% of the cases they cover.`,
    source_ids: cite(i),
  }));
  const opinions = Array.from({ length: between(seed, 'opinions', 2, 3) }, (_v, i) => ({
    text: `${mode === 'reddit' ? 'Commenters' : 'Writers'} weigh ${aspects[i + 5]} above ${aspects[i + 6]} when it comes to ${subject}.`,
    source_ids: cite(i + 1),
  }));
  return { facts, opinions, sources };
}
