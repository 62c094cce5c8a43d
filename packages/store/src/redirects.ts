import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PageType } from '@cm/contract';
import { pageId } from '@cm/core';
import { conditionalUpdate } from './conditional';
import { pageKey } from './keys';
import { decodeRedirectsItem, decodeSlugSlot } from './redirects.decoder';
import { Update } from './update';

/*
 * Slugs that moved (docs/api/publishing.md#renaming-a-page). A page's id is derived from its first slug,
 * and its item is at that id; the item at the id a slug derives is that slug's "slot". A slot says who
 * holds its slug with `slug_page`: absent, the page at the slot holds it (the page's own slug, or, once
 * the page was renamed away, a redirect to it); a page id, that page holds it (its current slug, or a
 * redirect to it); empty, the slug's redirect was removed and the slug is free. A renamed page lists its
 * old slugs that redirect to it in `redirect_slugs`. Only a renamed page's slugs have any of this: a
 * publish or a read of any other page finds its slot as it always was.
 */

const SLUG_PAGE = 'slug_page';
const REDIRECT_SLUGS = 'redirect_slugs';
/** `slug_page` of a slug whose redirect was removed, on a slot a page's item is at (it stays there). */
const FREED = '';

/** Who holds a slug, as its slot says. */
export type SlugSlot =
  /** No item at the slot, or only the mark pages linking to it left: the slug is free. */
  | { holder: 'none' }
  /** Its redirect was removed: a publish may take it, with a new id (the slot's is its first page's). */
  | { holder: 'freed' }
  /** The page `id` holds it: its current slug is `slug` or another (then the slug redirects to it). */
  | { holder: 'page'; id: string; slug: string | null };

/**
 * The condition a publish's write of a page makes on the slug it was sent with (PageStore.put): the page
 * has it, or is new. At the slug's own slot (`atSlot`) the slot must also not send the slug elsewhere.
 */
export function slugCondition(update: Update, claim: { slug: string; atSlot: boolean }): void {
  // Not in parentheses of its own: the update puts each of its conditions in them when it has several.
  const holds = `${update.absent('slug')} OR ${update.name('slug')} = ${update.value('held_slug', claim.slug)}`;
  update.when(claim.atSlot ? `${update.absent(SLUG_PAGE)} AND (${holds})` : holds);
}

export class RedirectStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Who holds `slug`, read strongly consistent from its slot. */
  async slot(siteId: number, type: PageType, slug: string): Promise<SlugSlot> {
    const id = pageId(siteId, type, slug);
    const out = await this.db.send(
      new GetCommand({
        TableName: this.table,
        Key: pageKey(siteId, type, id),
        ProjectionExpression: '#slug, #page',
        ExpressionAttributeNames: { '#slug': 'slug', '#page': SLUG_PAGE },
        ConsistentRead: true,
      }),
    );
    const item = out.Item ? decodeSlugSlot(out.Item) : null;
    if (item?.slug_page === FREED) return { holder: 'freed' };
    if (item?.slug_page !== undefined) return { holder: 'page', id: item.slug_page, slug: null };
    if (item?.slug !== undefined) return { holder: 'page', id, slug: item.slug };
    return { holder: 'none' };
  }

  /**
   * `page` takes `slug`: a free slug, one whose redirect was removed, or one that is already its own (a
   * slug it had, or the one its id was derived from, unless another page took that). False when another
   * page holds it.
   */
  async claim(siteId: number, type: PageType, slug: string, page: string): Promise<boolean> {
    const slotId = pageId(siteId, type, slug);
    const update = new Update();
    const free = update.value('freed', FREED);
    if (slotId === page) {
      update.remove(SLUG_PAGE).when(`${update.absent(SLUG_PAGE)} OR ${update.name(SLUG_PAGE)} = ${free}`);
    } else {
      const mine = update.value('page', page);
      update
        .set(SLUG_PAGE, page, { valueKey: 'page' })
        .when(
          `(${update.absent(SLUG_PAGE)} AND ${update.absent('slug')}) OR ${update.name(SLUG_PAGE)} = ${free} OR ${update.name(SLUG_PAGE)} = ${mine}`,
        );
    }
    return (await conditionalUpdate(this.db, this.table, pageKey(siteId, type, slotId), update)).ok;
  }

  /**
   * The rename's one write of the page (the slug it goes to claimed first): its slug, while it is still
   * `from`; what readers see of it and of the pages linking to it changed now (its sitemap entry, their
   * Last-Modified). `from` joins its redirects, `to` leaves them. False when the page's slug is not `from`.
   */
  async moveSlug(
    siteId: number,
    page: { type: PageType; id: string },
    move: { from: string; to: string; now: string },
  ): Promise<boolean> {
    const update = new Update()
      .set('slug', move.to, { valueKey: 'to' })
      .set('visible_at', move.now, { valueKey: 'now' })
      .set('notified_at', move.now, { valueKey: 'now' });
    // A set cannot be added to and taken from in one write; the slot of `to` says the truth meanwhile.
    update.add(REDIRECT_SLUGS, new Set([move.from]));
    update.when(`${update.name('slug')} = ${update.value('from', move.from)}`);
    const key = pageKey(siteId, page.type, page.id);
    const moved = (await conditionalUpdate(this.db, this.table, key, update)).ok;
    if (moved) await this.forget(siteId, page, move.to);
    return moved;
  }

  /**
   * Removes the redirect of `slug` to `page`: the slug is free for any publish or rename. False when
   * `slug` does not redirect to `page` (its current slug does not: `current`).
   */
  async unreserve(siteId: number, page: { type: PageType; id: string }, slug: string, current: string) {
    const { type, id } = page;
    const slotId = pageId(siteId, type, slug);
    if (slug === current) return false;
    const key = pageKey(siteId, type, slotId);
    let removed: boolean;
    if (slotId === id) {
      const update = new Update().set(SLUG_PAGE, FREED, { valueKey: 'freed' });
      update.when(`${update.absent(SLUG_PAGE)} AND ${update.exists('status')}`);
      removed = (await conditionalUpdate(this.db, this.table, key, update)).ok;
    } else {
      // A slot with a page item keeps its item, marked free; one with only the pointer loses it.
      const bare = new Update().remove(SLUG_PAGE);
      bare.when(`${bare.name(SLUG_PAGE)} = ${bare.value('page', id)} AND ${bare.absent('status')}`);
      const marked = new Update().set(SLUG_PAGE, FREED, { valueKey: 'freed' });
      marked.when(`${marked.name(SLUG_PAGE)} = ${marked.value('page', id)} AND ${marked.exists('status')}`);
      removed =
        (await conditionalUpdate(this.db, this.table, key, bare)).ok ||
        (await conditionalUpdate(this.db, this.table, key, marked)).ok;
    }
    // Listed or not, the slug is no redirect of the page's now.
    await this.forget(siteId, page, slug);
    return removed;
  }

  /** The old slugs that redirect to the page, sorted; null when there is no such page. */
  async redirectsOf(siteId: number, type: PageType, id: string): Promise<{ slug: string; redirects: string[] } | null> {
    const out = await this.db.send(
      new GetCommand({
        TableName: this.table,
        Key: pageKey(siteId, type, id),
        ProjectionExpression: '#slug, #status, #redirects',
        ExpressionAttributeNames: { '#slug': 'slug', '#status': 'status', '#redirects': REDIRECT_SLUGS },
        ConsistentRead: true,
      }),
    );
    if (!out.Item || !('status' in out.Item)) return null;
    const item = decodeRedirectsItem(out.Item);
    return { slug: item.slug, redirects: [...(item.redirect_slugs ?? [])].sort() };
  }

  /** `slug` is no longer listed among the page's redirects. */
  private async forget(siteId: number, page: { type: PageType; id: string }, slug: string): Promise<void> {
    const update = new Update().deleteFromSet(REDIRECT_SLUGS, new Set([slug]));
    await conditionalUpdate(this.db, this.table, pageKey(siteId, page.type, page.id), update);
  }
}
