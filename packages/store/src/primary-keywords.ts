import { DeleteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isLive, type PageType } from '@cm/contract';
import { batchGet } from './batch';
import { pageKey, primaryKeywordKey, primaryKeywordPartition } from './keys';
import { decodeKeywordHolder, decodeKeywordMember, isPageItem } from './pages.decoder';
import { byId } from './page-item';

/*
 * The pages of a site that name a primary keyword in their publish (docs/api/publishing.md#warnings):
 * one small item per (keyword, page), so the other pages of a keyword are one Query, never a scan.
 * Whether such a page is live, and still names the keyword, is read from its page item, so a notify
 * that takes it down writes nothing here, and an item a failed publish left behind is passed by.
 */

/** Items of a keyword read at most: the pages a publish checks for one keyword. */
export const KEYWORD_HOLDERS_READ = 25;

/** A live page that names a keyword, as a publish's warning names it. */
export interface KeywordHolder {
  id: string;
  type: PageType;
  slug: string;
}

const memberKey = (siteId: number, keyword: string, page: { type: PageType; id: string }) =>
  primaryKeywordKey(siteId, keyword, page.id);

export class PrimaryKeywordStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /**
   * The page names `keyword` now and no longer `before`: its item is put (again: a publish that failed
   * part way is made good) and the old keyword's removed, in the same round trip as the Query of the
   * keyword's other pages; then one BatchGetItem of those (at most KEYWORD_HOLDERS_READ) answers the
   * live ones that still name it. `keyword` null: the page names none, only `before`'s item goes.
   */
  async hold(
    siteId: number,
    page: { type: PageType; id: string },
    keyword: string | null,
    before: string | null,
  ): Promise<KeywordHolder[]> {
    const release =
      before === null || before === keyword
        ? undefined
        : this.db.send(new DeleteCommand({ TableName: this.table, Key: memberKey(siteId, before, page) }));
    if (keyword === null) {
      await release;
      return [];
    }
    const [others] = await Promise.all([
      this.members(siteId, keyword),
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...memberKey(siteId, keyword, page), type: page.type, id: page.id },
        }),
      ),
      release,
    ]);
    const refs = others.filter((other) => other.id !== page.id);
    if (refs.length === 0) return [];
    const items = await batchGet(
      this.db,
      this.table,
      refs.map((ref) => pageKey(siteId, ref.type, ref.id)),
      {
        expression: 'id, slug, #type, #status, deleted, primary_keyword',
        names: { '#type': 'type', '#status': 'status' },
      },
    );
    return items
      .filter(isPageItem)
      .map(decodeKeywordHolder)
      .filter((item) => item.primary_keyword === keyword && isLive(item.status, item.deleted === true))
      .map((item) => ({ id: item.id, type: item.type, slug: item.slug }))
      .sort(byId);
  }

  /** The pages whose items the keyword's partition has, the first KEYWORD_HOLDERS_READ + 1 (the publishing page may be one). */
  private async members(siteId: number, keyword: string): Promise<{ type: PageType; id: string }[]> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': primaryKeywordPartition(siteId, keyword) },
        ProjectionExpression: 'id, #type',
        ExpressionAttributeNames: { '#type': 'type' },
        Limit: KEYWORD_HOLDERS_READ + 1,
      }),
    );
    return (out.Items ?? []).map(decodeKeywordMember);
  }
}
