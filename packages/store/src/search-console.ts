import {
  UpdateCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { batchGet } from './batch';
import { conditionalUpdate } from './conditional';
import { searchConsoleKey, siteKey } from './keys';
import { decodeSearchConsole, type SearchConsoleConnection } from './search-console.decoder';
import { Update } from './update';

/*
 * A site's Search Console connection (docs/api/search-console.md#the-connection): one item beside the
 * site's, and the verification token on the site's own item, which every page of the site reads anyway.
 */

export class SearchConsoleStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** The site's connection, or null. One GetItem. */
  async get(siteId: number): Promise<SearchConsoleConnection | null> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: searchConsoleKey(siteId) }));
    return out.Item ? decodeSearchConsole(out.Item) : null;
  }

  /** The connections of the sites of `ids` that have one: one BatchGetItem per 100. */
  async getMany(ids: readonly number[]): Promise<Map<number, SearchConsoleConnection>> {
    const items = await batchGet(this.db, this.table, ids.map(searchConsoleKey));
    return new Map(items.map(decodeSearchConsole).map((connection) => [connection.site_id, connection]));
  }

  /** Stores the site's connection whole. One PutItem. */
  async put(connection: SearchConsoleConnection): Promise<void> {
    await this.db.send(
      new PutCommand({ TableName: this.table, Item: { ...searchConsoleKey(connection.site_id), ...connection } }),
    );
  }

  /** Removes the site's connection: the one it had, or null. One DeleteItem. */
  async remove(siteId: number): Promise<SearchConsoleConnection | null> {
    const out = await this.db.send(
      new DeleteCommand({ TableName: this.table, Key: searchConsoleKey(siteId), ReturnValues: 'ALL_OLD' }),
    );
    return out.Attributes ? decodeSearchConsole(out.Attributes) : null;
  }

  /** Sets the verification token the site's domain serves; false when there is no such site. One UpdateItem. */
  async setToken(siteId: number, token: string): Promise<boolean> {
    const set = new Update().set('search_console_token', token, { valueKey: 'token' });
    return (await conditionalUpdate(this.db, this.table, siteKey(siteId), set.when(set.exists('pk')))).ok;
  }

  /**
   * An import of `date` of the connected `property` ended: connected, and imported through the latest
   * day stored (imports of several days end in any order), or failed with why. Nothing when the site
   * disconnected or connected another property meanwhile. One or two UpdateItems.
   */
  async recordImport(
    siteId: number,
    property: string,
    date: string,
    error: string | null,
    refusedBefore = false,
  ): Promise<void> {
    const key = searchConsoleKey(siteId);
    const ended = new Update();
    // Read again after a refusal (the account added late): the daily plan asks the refused days again.
    if (error === null && refusedBefore) ended.set('backfill_due', true, { valueKey: 'due' });
    if (error === null) ended.set('status', 'connected', { valueKey: 'status' }).remove('last_error');
    else ended.set('status', 'failed', { valueKey: 'status' }).set('last_error', error, { valueKey: 'error' });
    const sameProperty = (update: Update) => `${update.name('property')} = ${update.value('property', property)}`;
    await conditionalUpdate(this.db, this.table, key, ended.when(sameProperty(ended)));
    if (error !== null) return;
    const through = new Update().set('imported_through', date, { valueKey: 'date' });
    const later = `${through.absent('imported_through')} OR ${through.name('imported_through')} < ${through.value('date', date)}`;
    await conditionalUpdate(this.db, this.table, key, through.when(sameProperty(through)).when(later));
  }

  /** The refused days of a connection read again are queued: its mark taken off (one UpdateItem). */
  async backfillQueued(siteId: number): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: searchConsoleKey(siteId),
        UpdateExpression: 'REMOVE backfill_due',
      }),
    );
  }
}
