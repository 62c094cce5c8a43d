import type { PageCard, PageDoc, PageListItem, PageState, PageStatus, PageType } from '@cm/contract';
import type { PageSchedule } from '@cm/core';

/** The page with the times the service itself recorded (never the editor's `updated_at`), for visitor pages' Last-Modified. */
export interface StoredPage extends PageState {
  /** When the newest publish was stored or the newest notify applied was received. */
  notified_at: string | null;
  /** When the site last set or removed the summary. */
  summary_at: string | null;
  /** The live revision's id (revisions.ts). */
  revision: string;
}

export interface PutPage {
  siteId: number;
  type: PageType;
  id: string;
  doc: PageDoc;
  /** Outgoing links (sorted), indexed so that relink finds linking pages with one Query. */
  links: string[];
  /** What the site's listing pages, sitemaps and feed show of it, and the sections that list it. */
  card: PageCard;
  /** Its content's hash (core's contentHash): a republish with the same one changed nothing readers read. */
  contentHash: string;
  now: string;
  /**
   * The slug the page must hold for this write (redirects.ts): the page has it or is new; at the slug's
   * own slot (`atSlot`, the id it derives), no other page holds or reserves it either. By default the
   * document's slug, at its slot.
   */
  claim?: { slug: string; atSlot: boolean };
  /** Its schedule (none: a republish without one cancels what was scheduled). */
  schedule?: PageSchedule | null;
  /** The primary keyword the publish names (none: it names none). */
  primaryKeyword?: string | null;
}

export interface PutResult {
  created: boolean;
  created_at: string;
  /** The replaced page's live state and owed relink, or null when the page is new. */
  previous: CurrentLiveState | null;
  /** The document version this publish wrote; a later write to the page can be made conditional on it. */
  version: string;
  /** Whether the content is not the replaced page's (or the page is new). */
  contentChanged: boolean;
  /** Pages linked to this one before it existed (a publish of theirs left a mark where it would be). */
  awaited: boolean;
  /** Null when the page's link items already have exactly its links; else what there is to bring in line. */
  linksToIndex: LinksToIndex | null;
  /** The primary keyword the replaced page named (null: none, or the page is new). */
  previousPrimaryKeyword: string | null;
}

/** What a publish finds of the page's link index when its links are not the ones indexed. */
export interface LinksToIndex {
  /** No link items to read: the page is new. */
  empty: boolean;
  /** What a page item from before link items held: its links and the ones relink kept from readers. */
  legacy: { links: string[]; suppressed: PageState['suppressed'] } | null;
  /** The links' hash, which the index is said to have once they are in line. */
  hash: string | null;
}

export interface CurrentLiveState {
  status: PageStatus;
  deleted: boolean;
  /** The site's date of the newest dated notify applied since the page's last publish, or null. */
  site_clock: string | null;
  /** When set, a relink for this page's last change is owed. */
  relink_pending: string | null;
}

/** A page of `GET /articles` or `/questions` as the store answers it (PageList without what the workflow adds). */
export interface StoredPageList {
  /** What the list indexes (by updated, by status) have of each page; the workflow adds its URL and, when asked, its suppressed links. */
  items: Omit<PageListItem, 'url' | 'suppressed_links'>[];
  next_cursor: string | null;
}

/** A notify written: the page's live state before it (null when the notify set none), and the relink owed before it. */
export interface NotifyApplied {
  before: { status: PageStatus; deleted: boolean } | null;
  relinkPendingBefore: string | null;
  /** Set when this write marked a relink owed (none was): the caller takes the mark back if no relink is due. */
  markedAt: string | null;
}

export interface LinkTarget {
  id: string;
  type: PageType;
  slug: string;
  /** An article's title or a question's question: what a card of it shows. */
  title: string;
  live: boolean;
  /** When its live state may last have changed: its newest publish or notify. */
  notified_at: string | null;
}

/**
 * A run of a listing's places from a cursor (exclusive), nearest first: each item with the cursor that
 * names its place (a listing page starting after it), and `end` when there is none past them.
 */
export interface ListingRun<T> {
  items: { cursor: string; item: T }[];
  end: boolean;
}

/** Which way a run goes from its cursor: toward the older places (down the listing) or the newer. */
export type RunToward = 'older' | 'newer';
