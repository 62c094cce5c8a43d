import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CommunityAnswer } from '@cm/contract';
import { conditionFailed } from './batch';
import { answerKey, pageKey } from './keys';
import { PageLiveStore } from './page-live';

/* What a site adds of its own to its questions: a summary, and community answers beside them. */

export class PagePartStore {
  private readonly live: PageLiveStore;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {
    this.live = new PageLiveStore(db, table);
  }

  /** Sets the site-owned summary of a question; false when there is no such question. */
  async setSummary(siteId: number, id: string, summary: string | null, now: string): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: pageKey(siteId, 'question', id),
          UpdateExpression:
            summary === null
              ? 'SET summary_at = :now, visible_at = :now REMOVE summary'
              : 'SET summary = :s, summary_at = :now, visible_at = :now',
          ConditionExpression: 'attribute_exists(version)',
          ExpressionAttributeValues: summary === null ? { ':now': now } : { ':s': summary, ':now': now },
        }),
      );
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
  }

  /** Stores a community answer beside a question; false when there is no such question. */
  async addCommunityAnswer(siteId: number, questionId: string, answer: CommunityAnswer): Promise<boolean> {
    const exists = await this.db.send(
      new GetCommand({
        TableName: this.table,
        Key: pageKey(siteId, 'question', questionId),
        ProjectionExpression: 'version',
      }),
    );
    if (!exists.Item?.version) return false;
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...answerKey(siteId, 'question', questionId, answer.created_at, answer.answer_id),
          data: JSON.stringify(answer),
        },
      }),
    );
    await this.live.visibleChange(siteId, { type: 'question', id: questionId }, answer.created_at);
    return true;
  }
}
