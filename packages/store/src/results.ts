import { randomBytes } from 'node:crypto';
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchWrite } from './batch';
import { resultPartition, resultPartKey } from './keys';
import { decodeResultPart } from './results.decoder';

/** Bytes per item: under DynamoDB's 400 KB item limit with room for the other attributes. */
const PART_BYTES = 350_000;

/** A tool's result as it was answered, kept for its pages and its resource. */
export interface KeptResult {
  tool: string;
  /** The result's JSON text. */
  json: string;
  created_at: string;
  /** When it goes (epoch seconds): TTL removes it, and a read after it finds nothing. */
  expires_at: number;
}

/**
 * Tool results too large for one MCP reply, kept whole for a while so their pages and their
 * `resource_link` read the very answer the call gave (and paid for) instead of running it again.
 * Each is scoped to its site: another site's id reads as missing.
 */
export class ResultStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Keeps `json` for `keepSeconds`; its id (random, 128 bits). One BatchWriteItem for results up to 25 parts. */
  async keep(siteId: number, tool: string, json: string, now: Date, keepSeconds: number): Promise<string> {
    const id = randomBytes(16).toString('base64url');
    const bytes = Buffer.from(json, 'utf8');
    const parts = Math.max(1, Math.ceil(bytes.length / PART_BYTES));
    const common = {
      tool,
      parts,
      created_at: now.toISOString(),
      expires_at: Math.floor(now.getTime() / 1000) + keepSeconds,
    };
    await batchWrite(
      this.db,
      this.table,
      Array.from({ length: parts }, (_, part) => ({
        PutRequest: {
          Item: {
            ...resultPartKey(siteId, id, part),
            ...common,
            body: bytes.subarray(part * PART_BYTES, (part + 1) * PART_BYTES),
          },
        },
      })),
    );
    return id;
  }

  /** The kept result, or null when it is unknown to the site, incomplete or past its time. One Query. */
  async read(siteId: number, id: string, now: Date): Promise<KeptResult | null> {
    const parts = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': resultPartition(siteId, id) },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      parts.push(...(out.Items ?? []).map(decodeResultPart));
      start = out.LastEvaluatedKey;
    } while (start);
    const first = parts[0];
    if (!first || parts.length !== first.parts || first.expires_at * 1000 <= now.getTime()) return null;
    return {
      tool: first.tool,
      json: Buffer.concat(parts.map((part) => part.body)).toString('utf8'),
      created_at: first.created_at,
      expires_at: first.expires_at,
    };
  }
}
