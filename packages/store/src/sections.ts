import { createHash } from 'node:crypto';
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ListedPage, NamedSection, PageType, SectionKind } from '@cm/contract';
import { batchGet, batchWrite, queryAll } from './batch';
import { decodeCursorPositions, encodeCursor, ONE_POSITION } from './cursor';
import {
  pageKey,
  SECTION_REGISTRY_PREFIX,
  sectionMemberKey,
  sectionPartition,
  sectionRegistryKey,
  sitePartition,
} from './keys';
import { decodeRegisteredSection, decodeSectionMember, decodeSectionPage } from './pages.decoder';
import type { ListingRun, RunToward } from './page-types';

/*
 * A category's articles and a topic's questions: the site's section pages list them, newest first. A
 * publish writes one item per section the page is in (and removes those it left); whether the page is
 * live, and what its card shows, is read from the page item itself when the section is listed, so a
 * notify that takes a page down needs no write here. An item whose page is no longer in that section
 * (a publish that failed between its writes) is skipped when listed.
 */

/** How a page item names a section it is in. */
export const sectionName = (section: { kind: SectionKind; slug: string }): string => `${section.kind}/${section.slug}`;

/** The sections of a page in a few bytes, so a publish tells from the item it replaces whether they changed; null: none. */
export const sectionsHash = (sections: readonly NamedSection[]): string | null =>
  sections.length === 0
    ? null
    : createHash('sha256')
        .update(JSON.stringify(sections.map((s) => [s.kind, s.slug, s.name]).sort()))
        .digest('base64url')
        .slice(0, 22);

/** A section's item: a page listed in it, and the section's name as that page sent it. */
export type SectionMember = ReturnType<typeof decodeSectionMember>;

/** The cards of a page of a section's listing. */
export interface SectionListing {
  /** The section's name, as the newest page listed sent it; null when nothing is listed. */
  name: string | null;
  pages: ListedPage[];
}

const SECTION_PAGE_PROJECTION = {
  expression:
    'id, #type, slug, title, card_text, category, created_at, visible_at, notified_at, noindex, canonical_url, #status, deleted, sections',
  names: { '#type': 'type', '#status': 'status' },
};

export class SectionStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /**
   * Brings a page's section items in line with `after`: an item for each (its sort key the page's first
   * publish, `createdAt`), and none for the sections of `before` it left. Puts and deletes are idempotent.
   */
  async reindex(
    siteId: number,
    page: { type: PageType; id: string },
    createdAt: string,
    before: readonly string[],
    after: readonly NamedSection[],
  ): Promise<void> {
    const kept = new Set(after.map(sectionName));
    const left = before.flatMap((name) => {
      const [kind, ...slug] = name.split('/');
      return kept.has(name) || (kind !== 'category' && kind !== 'topic') ? [] : [{ kind, slug: slug.join('/') }];
    });
    await batchWrite(this.db, this.table, [
      ...after.map((section) => ({
        PutRequest: { Item: { ...sectionRegistryKey(siteId, section), kind: section.kind, slug: section.slug } },
      })),
      ...after.map((section) => ({
        PutRequest: {
          Item: {
            ...sectionMemberKey(siteId, section, createdAt, page.type, page.id),
            type: page.type,
            id: page.id,
            name: section.name,
          },
        },
      })),
      ...left.map((section) => ({
        DeleteRequest: { Key: sectionMemberKey(siteId, section, createdAt, page.type, page.id) },
      })),
    ]);
  }

  /**
   * Every section the site has had a page in (some may list none now), at most `max`: for its sitemap
   * of listing pages. Pages of up to 1 MB, one Query each.
   */
  async registered(siteId: number, max: number): Promise<{ kind: SectionKind; slug: string }[]> {
    const query = {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': sitePartition(siteId), ':prefix': SECTION_REGISTRY_PREFIX },
    };
    const items = await queryAll(this.db, query, max);
    return items.map(decodeRegisteredSection);
  }

  /** A section's items from `cursor` (none: from the newest) toward the older or the newer, nearest first: one Query. */
  async memberRun(
    siteId: number,
    section: { kind: SectionKind; slug: string },
    options: { limit: number; cursor?: string; toward: RunToward },
  ): Promise<ListingRun<SectionMember>> {
    const at = options.cursor === undefined ? undefined : decodeCursorPositions(options.cursor, ONE_POSITION)[0];
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression:
          at === undefined ? 'pk = :pk' : `pk = :pk AND sk ${options.toward === 'older' ? '<' : '>'} :at`,
        ExpressionAttributeValues: {
          ':pk': sectionPartition(siteId, section.kind, section.slug),
          ...(at === undefined ? {} : { ':at': at }),
        },
        ScanIndexForward: options.toward === 'newer',
        Limit: options.limit,
      }),
    );
    const members = (out.Items ?? []).map(decodeSectionMember);
    return {
      items: members.map((member) => ({ cursor: encodeCursor([member.sk]), item: member })),
      end: out.LastEvaluatedKey === undefined,
    };
  }

  /**
   * The live pages of `members` (one batch read, eventually consistent: a listing is cached a minute
   * anyway), in their order, and the section's name as the newest of them sent it. Pages that are not
   * live, or no longer in the section, are left out.
   */
  async cards(
    siteId: number,
    section: { kind: SectionKind; slug: string },
    members: readonly SectionMember[],
  ): Promise<SectionListing> {
    const found = await batchGet(
      this.db,
      this.table,
      members.map((member) => pageKey(siteId, member.type, member.id)),
      SECTION_PAGE_PROJECTION,
    );
    const pages = new Map(found.map(decodeSectionPage).map((read) => [read.page.id, read]));
    const listed = members.flatMap((member) => {
      const read = pages.get(member.id);
      return read?.live && read.sections.includes(sectionName(section)) ? [{ member, page: read.page }] : [];
    });
    return { name: listed[0]?.member.name ?? null, pages: listed.map(({ page }) => page) };
  }
}
