import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conditionalUpdate } from './conditional';
import { decodeConfirm } from './confirms.decoder';
import { confirmKey } from './keys';
import { Update } from './update';

/** What a confirm token approves: one tool, one input (its hash), up to an estimate, until `expiresMs`. */
export interface ConfirmGrant {
  tool: string;
  inputHash: string;
  approvedUsd: number;
  expiresMs: number;
}

/** Why a token was refused. */
export type ConfirmRefusal = 'unknown' | 'used' | 'expired' | 'other_tool' | 'other_input';

export type ConfirmOutcome = { used: true; approvedUsd: number } | { used: false; refusal: ConfirmRefusal };

/** TTL tidies a token away this long after it expired. */
const KEEP_SECONDS = 86_400;

/**
 * One-use approval tokens, stored only as their hash. Using one is a single conditional update (it
 * marks the token used only if it is unused, unexpired, and for this tool and input), so two calls
 * with one token run at most once.
 */
export class ConfirmStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(siteId: number, tokenHash: string, grant: ConfirmGrant): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...confirmKey(siteId, tokenHash),
          tool: grant.tool,
          input_hash: grant.inputHash,
          approved_usd: grant.approvedUsd,
          expires_ms: grant.expiresMs,
          expires_at: Math.floor(grant.expiresMs / 1000) + KEEP_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  /** Uses the token for `tool` and `inputHash` at `nowMs`, or says why it cannot be. */
  async use(
    siteId: number,
    tokenHash: string,
    tool: string,
    inputHash: string,
    nowMs: number,
  ): Promise<ConfirmOutcome> {
    const key = confirmKey(siteId, tokenHash);
    const use = new Update().set('used_at', new Date(nowMs).toISOString(), { valueKey: 'at' });
    use.when(
      `${use.exists('pk')} AND ${use.absent('used_at')} AND ${use.name('tool')} = ${use.value('tool', tool)} AND ` +
        `${use.name('input_hash')} = ${use.value('hash', inputHash)} AND ${use.name('expires_ms')} > ${use.value('now', nowMs)}`,
    );
    const used = await conditionalUpdate(this.db, this.table, key, use, {
      returns: 'ALL_NEW',
      decode: (item) => decodeConfirm(item, key).approved_usd,
    });
    if (used.ok) return { used: true, approvedUsd: used.attributes };
    // Refused: one more read, only on this path, to say why.
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    if (!out.Item) return { used: false, refusal: 'unknown' };
    const item = decodeConfirm(out.Item, key);
    if (item.used_at !== undefined) return { used: false, refusal: 'used' };
    if (item.tool !== tool) return { used: false, refusal: 'other_tool' };
    if (item.input_hash !== inputHash) return { used: false, refusal: 'other_input' };
    return { used: false, refusal: 'expired' };
  }
}
