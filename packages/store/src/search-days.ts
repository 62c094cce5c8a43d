import { GetCommand, PutCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { SERVICE_LIMITS, type SearchDay } from '@cm/contract';
import { positionCountsOf, type PositionCounts } from '@cm/core';
import { queryAll } from './batch';
import { encodeJson } from './codec';
import { conditionalWrite } from './conditional';
import { searchDayKey, searchDayPartition } from './keys';
import { decodePositionCounts, decodeSearchDay } from './search-days.decoder';

/*
 * A site's Search Console days (docs/api/search-console.md): one item a day, its figures gzipped, kept
 * SERVICE_LIMITS.searchDaysKept days. The caps of a day's lists keep an item well under 400 KB.
 */

const DAY_SECONDS = 24 * 60 * 60;

export class SearchDayStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /**
   * Stores a site's day, once it is final: a day stored final is not written again (a redelivered or
   * repeated import writes nothing: `false`), a day stored fresh is replaced. One conditional PutItem.
   */
  async put(siteId: number, day: SearchDay): Promise<boolean> {
    const expiresAt =
      Math.floor(Date.parse(`${day.date}T00:00:00Z`) / 1000) + SERVICE_LIMITS.searchDaysKept * DAY_SECONDS;
    const written = await conditionalWrite(
      this.db,
      new PutCommand({
        TableName: this.table,
        Item: {
          ...searchDayKey(siteId, day.date),
          date: day.date,
          data_state: day.data_state,
          day: encodeJson(day),
          position_counts: positionCountsOf(day),
          expires_at: expiresAt,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR data_state <> :final',
        ExpressionAttributeValues: { ':final': 'final' },
      }),
    );
    return written.ok;
  }

  /** The site's stored days from `from` to `to` (YYYY-MM-DD, both included), oldest first: one Query (a page per MB). */
  async range(siteId: number, from: string, to: string): Promise<SearchDay[]> {
    return (await this.query(siteId, from, to)).map(decodeSearchDay);
  }

  /**
   * The counts by position of the site's stored days from `from` to `to`, oldest first: one Query of
   * two attributes, so the site's CTR curve neither unzips nor decodes the days' figures (a day at the
   * caps is ~25 ms of CPU). A day stored before its counts were is read whole once more (at most the
   * range's, in its first weeks after the upgrade).
   */
  async positionCounts(siteId: number, from: string, to: string): Promise<Array<{ date: string } & PositionCounts>> {
    const items = (
      await this.query(siteId, from, to, {
        ProjectionExpression: '#date, position_counts',
        ExpressionAttributeNames: { '#date': 'date' },
      })
    ).map(decodePositionCounts);
    const counted = items.flatMap(({ date, position_counts: counts }) => (counts ? [{ date, ...counts }] : []));
    if (counted.length === items.length) return counted;
    return (await this.range(siteId, from, to)).map((day) => ({ date: day.date, ...positionCountsOf(day) }));
  }

  private query(
    siteId: number,
    from: string,
    to: string,
    projection: Pick<QueryCommandInput, 'ProjectionExpression' | 'ExpressionAttributeNames'> = {},
  ) {
    return queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': searchDayPartition(siteId),
        ':from': searchDayKey(siteId, from).sk,
        ':to': searchDayKey(siteId, to).sk,
      },
      ...projection,
    });
  }

  /** Whether the site has a final day stored for `date` (an import of it would write nothing). One GetItem. */
  async isFinal(siteId: number, date: string): Promise<boolean> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: searchDayKey(siteId, date), ProjectionExpression: 'data_state' }),
    );
    return out.Item?.data_state === 'final';
  }
}
