import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conditionalUpdate } from './conditional';
import { decodeElicitation, type ElicitationAction } from './elicitations.decoder';
import { elicitationKey } from './keys';
import { Update } from './update';

export type { ElicitationAction } from './elicitations.decoder';

/** TTL tidies a question away this long after nobody waits for it. */
const KEEP_SECONDS = 3_600;

/**
 * Questions the MCP server asks a client by elicitation (docs/api.md#the-streaming-endpoint). The
 * call that asks waits in one invocation; the client's answer is a POST of its own, which may reach
 * another: the answer meets the question here. Each is scoped to its site, by an id of 128 random bits.
 */
export class ElicitationStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Records that question `id` was asked and is awaited until `expiresMs`. */
  async ask(siteId: number, id: string, expiresMs: number): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...elicitationKey(siteId, id),
          expires_ms: expiresMs,
          expires_at: Math.floor(expiresMs / 1000) + KEEP_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  /**
   * The client's answer to question `id`: one conditional write, so only a question this site asked,
   * still awaited (not closed, not past its time) and not answered yet takes it. False when it did not.
   */
  async answer(siteId: number, id: string, action: ElicitationAction, nowMs: number): Promise<boolean> {
    const answer = new Update().set('action', action);
    answer.when(
      `${answer.exists('pk')} AND ${answer.absent('action')} AND ${answer.absent('closed_at')} AND ` +
        `${answer.name('expires_ms')} > ${answer.value('now', nowMs)}`,
    );
    return (await conditionalUpdate(this.db, this.table, elicitationKey(siteId, id), answer)).ok;
  }

  /** The answer to question `id` so far: null while none came. One consistent read. */
  async answerOf(siteId: number, id: string): Promise<ElicitationAction | null> {
    const key = elicitationKey(siteId, id);
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    return out.Item ? (decodeElicitation(out.Item, key).action ?? null) : null;
  }

  /**
   * Stops waiting for question `id`: one conditional write, so an answer that came first is not lost
   * (it is returned, to be honoured) and one after it is refused. Null when none came.
   */
  async close(siteId: number, id: string, nowMs: number): Promise<ElicitationAction | null> {
    const close = new Update().set('closed_at', new Date(nowMs).toISOString(), { valueKey: 'at' });
    close.when(`${close.exists('pk')} AND ${close.absent('action')}`);
    const closed = await conditionalUpdate(this.db, this.table, elicitationKey(siteId, id), close);
    // Refused: an answer came first (or the question is gone), and the answer is read.
    return closed.ok ? null : this.answerOf(siteId, id);
  }
}
