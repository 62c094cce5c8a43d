import type { KeywordRow, RowOf } from '@cm/contract';
import { Bug, normalizeKeyword, type ScopeKeyword } from '@cm/core';
import { keywordUnique, mapLimit } from '@cm/store';
import { pageKeywords, rowOrNotFound, type ToolContext } from './context';

/*
 * A scope's keywords, as serp_landscape and rank tracking both read them: a keyword, a topic (its
 * keyword links and its pages' keywords) or a page (its primary and secondary keywords).
 */

export interface Scope {
  info: { type: 'keyword' | 'topic' | 'page'; id: number | null; name: string };
  keywords: ScopeKeyword[];
  /** The scope's cm_pages rows: a topic's pages, or the page itself. */
  pages: RowOf<'cm_pages'>[];
  /** A topic's linked ideas its scope leaves out (none of its pages names them). */
  ideasLeftOut: string[];
}

/** Which of keyword, topic_id and page_id names the scope (exactly one). */
export type ScopeInput = { keyword?: string; topic_id?: number; page_id?: number };

type Reader = Pick<ToolContext, 'siteId' | 'store'>;

export const scopeKeywordOf = (row: KeywordRow): ScopeKeyword => ({
  keyword: row.keyword,
  keyword_id: row.id,
  is_idea: row.is_idea,
  locale: row.locale,
  volume: row.volume,
  cpc_usd: row.cpc_usd,
  competition: row.competition,
  intent: row.intent,
});

/** Keyword strings in a locale with their stored rows where they have one (batched reads). */
async function keywordsByText(ctx: Reader, keywords: readonly string[], locale: string): Promise<ScopeKeyword[]> {
  const unique = [...new Set(keywords.map(normalizeKeyword))];
  const ids = await ctx.store.rows.idsByUnique(
    ctx.siteId,
    'cm_keywords',
    unique.map((k) => keywordUnique(locale, k)),
  );
  const rows = await ctx.store.rows.getMany(ctx.siteId, 'cm_keywords', [...ids.values()]);
  return unique.map((keyword) => {
    const row = rows.get(ids.get(keywordUnique(locale, keyword)) ?? 0);
    return row
      ? scopeKeywordOf(row)
      : {
          keyword,
          keyword_id: null,
          is_idea: false,
          locale,
          volume: null,
          cpc_usd: null,
          competition: null,
          intent: null,
        };
  });
}

/** A keyword a page names is committed by it (spec: page scope covers all of them), whatever its row says. */
const namedByPage = (k: ScopeKeyword): ScopeKeyword => ({ ...k, is_idea: false });

/**
 * The pages' keywords, each (locale, keyword) once: those they name, committed, then (with `ideas`) the
 * ideas research in keywords mode stored for them (page_id), marked, which are shown apart and never
 * listed: one indexed Query per page.
 */
async function pagesKeywords(
  ctx: Reader,
  pages: readonly RowOf<'cm_pages'>[],
  locale: string,
  ideas: boolean,
): Promise<ScopeKeyword[]> {
  const [named, linked] = await Promise.all([
    keywordsByText(ctx, pages.flatMap(pageKeywords), locale),
    ideas ? mapLimit(pages, 8, (page) => ctx.store.rows.byField(ctx.siteId, 'cm_keywords', 'page_id', page.id)) : [],
  ]);
  const keywords = new Map(named.map((k) => [keywordUnique(k.locale, k.keyword), namedByPage(k)]));
  for (const row of linked.flat()) {
    const key = keywordUnique(row.locale, row.keyword);
    if (row.is_idea && !keywords.has(key)) keywords.set(key, scopeKeywordOf(row));
  }
  return [...keywords.values()];
}

/**
 * The keywords of the scope, each (locale, keyword) once: a topic's linked ideas are left out; the
 * keywords its pages name, and a page's own, are all in, a row of one stored as an idea included; with
 * `ideas`, the ideas researched for its pages are in, marked, for metrics only. A topic or page that
 * does not exist is `404 not_found`.
 */
export async function resolveScope(
  ctx: Reader,
  input: ScopeInput,
  locale: string,
  options: { ideas: boolean },
): Promise<Scope> {
  if (input.keyword !== undefined) {
    const keyword = normalizeKeyword(input.keyword);
    return {
      info: { type: 'keyword', id: null, name: keyword },
      keywords: await keywordsByText(ctx, [keyword], locale),
      pages: [],
      ideasLeftOut: [],
    };
  }
  if (input.page_id !== undefined) {
    const page = await rowOrNotFound(ctx, 'cm_pages', input.page_id);
    return {
      info: { type: 'page', id: page.id, name: page.title },
      keywords: await pagesKeywords(ctx, [page], locale, options.ideas),
      pages: [page],
      ideasLeftOut: [],
    };
  }
  // The input schemas require exactly one of keyword, page_id and topic_id.
  if (input.topic_id === undefined) throw new Bug('a scope without keyword, topic_id or page_id passed its schema');
  const topic = await rowOrNotFound(ctx, 'cm_topics', input.topic_id);
  const [links, pages] = await Promise.all([
    ctx.store.rows.byField(ctx.siteId, 'cm_topic_keywords', 'topic_id', topic.id),
    ctx.store.rows.byField(ctx.siteId, 'cm_pages', 'topic_id', topic.id),
  ]);
  const linked = await ctx.store.rows.getMany(
    ctx.siteId,
    'cm_keywords',
    links.map((l) => l.keyword_id),
  );
  const keywords = new Map<string, ScopeKeyword>();
  for (const row of linked.values())
    if (!row.is_idea) keywords.set(keywordUnique(String(row.locale), String(row.keyword)), scopeKeywordOf(row));
  for (const k of await pagesKeywords(ctx, pages, locale, options.ideas))
    if (!keywords.has(keywordUnique(k.locale, k.keyword))) keywords.set(keywordUnique(k.locale, k.keyword), k);
  // A linked idea a page names is in, committed by the page; the others are left out.
  const committed = (row: KeywordRow) => keywords.get(keywordUnique(row.locale, row.keyword))?.is_idea === false;
  return {
    info: { type: 'topic', id: topic.id, name: String(topic.name) },
    keywords: [...keywords.values()],
    pages,
    ideasLeftOut: [...linked.values()].filter((row) => row.is_idea && !committed(row)).map((row) => row.keyword),
  };
}
