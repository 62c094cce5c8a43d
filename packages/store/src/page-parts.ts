import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CommunityAnswer } from '@cm/contract';
import { conditionalUpdate } from './conditional';
import { Update } from './update';
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
    const update = new Update()
      .setOrRemove('summary', summary)
      .set('summary_at', now, { valueKey: 'now' })
      .set('visible_at', now, { valueKey: 'now' });
    update.when(update.exists('version'));
    return (await conditionalUpdate(this.db, this.table, pageKey(siteId, 'question', id), update)).ok;
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
