import { randomUUID } from 'node:crypto';
import {
  notFound,
  type CommunityAnswerInput,
  type PageList,
  type PageListQuery,
  type PageRecord,
  type PageType,
} from '@cm/contract';
import { pageId, pageRecord, pageTypeOfId, pageUrl, suppressedLinks } from '@cm/core';
import type { Store, StoredPage } from '@cm/store';
import { pageOfSlug } from './slugs';

/** The page's record with its live revision's id. */
const liveRecord = (page: StoredPage): PageRecord => ({ ...pageRecord(page), revision: page.revision });

/** A page of the site by its id, every stored field with defaults applied; `404` when there is none of that type. */
export async function readPage(store: Store, siteId: number, type: PageType, id: string): Promise<PageRecord> {
  const page = pageTypeOfId(id) === type ? await store.pages.get(siteId, type, id) : null;
  if (!page) throw notFound(`No ${type} with id ${id}`);
  return liveRecord(page);
}

/**
 * The page with `query.slug`, or a listing of the site's pages of that type, newest first, each with its
 * visitor URL and, when asked, the links relink keeps from its readers.
 */
export async function listPages(
  store: Store,
  siteId: number,
  type: PageType,
  query: PageListQuery,
  siteRoot: string,
): Promise<PageRecord | PageList> {
  if (query.slug !== undefined) {
    const slug = query.slug;
    // The page whose slug it is now: an old slug of a renamed page names it no more.
    const found = await pageOfSlug(
      store,
      siteId,
      type,
      slug,
      await store.pages.get(siteId, type, pageId(siteId, type, slug)),
    );
    if (!found || found.moved) throw notFound(`No ${type} with slug ${JSON.stringify(slug)}`);
    return liveRecord(found.page);
  }
  const listing = await store.pageListings.list(siteId, type, query);
  const suppressed =
    query.suppressed_links === 'true'
      ? await store.pageLive.suppressedOf(
          siteId,
          type,
          listing.items.map((item) => item.id),
        )
      : null;
  return {
    items: listing.items.map((item) => ({
      ...item,
      url: pageUrl(siteRoot, type, item.slug),
      ...(suppressed ? { suppressed_links: suppressedLinks(suppressed.get(item.id) ?? []) } : {}),
    })),
    next_cursor: listing.next_cursor,
  };
}

/** The id of a question, else `404` (before the body is read or anything written). */
export function questionId(id: string): string {
  if (pageTypeOfId(id) !== 'question') throw notFound(`No question with id ${id}`);
  return id;
}

/** Sets the site-owned summary of a question, which no publish touches. */
export async function setQuestionSummary(
  store: Store,
  siteId: number,
  id: string,
  summary: string | null,
  now = new Date(),
): Promise<PageRecord> {
  const page = (await store.pageParts.setSummary(siteId, questionId(id), summary, now.toISOString()))
    ? await store.pages.get(siteId, 'question', id)
    : null;
  if (!page) throw notFound(`No question with id ${id}`);
  return liveRecord(page);
}

/** Adds a community answer next to the editor's answer, which a publish replaces whole. */
export async function addCommunityAnswer(
  store: Store,
  siteId: number,
  id: string,
  input: CommunityAnswerInput,
  now = new Date(),
): Promise<{ answer_id: string }> {
  const answer = { answer_id: randomUUID(), author: input.author, blocks: input.blocks, created_at: now.toISOString() };
  if (!(await store.pageParts.addCommunityAnswer(siteId, questionId(id), answer)))
    throw notFound(`No question with id ${id}`);
  return { answer_id: answer.answer_id };
}
