import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchWrite, queryAll } from './batch';
import { splitChunks } from './codec';
import { resultPartition, resultPartKey } from './keys';
import { decodeResultPart } from './results.decoder';

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
    // Item-sized parts, as a page's document is chunked (codec.ts).
    const parts = splitChunks(Buffer.from(json, 'utf8'));
    const common = {
      tool,
      parts: parts.length,
      created_at: now.toISOString(),
      expires_at: Math.floor(now.getTime() / 1000) + keepSeconds,
    };
    await batchWrite(
      this.db,
      this.table,
      parts.map((body, part) => ({ PutRequest: { Item: { ...resultPartKey(siteId, id, part), ...common, body } } })),
    );
    return id;
  }

  /** The kept result, or null when it is unknown to the site, incomplete or past its time. One Query. */
  async read(siteId: number, id: string, now: Date): Promise<KeptResult | null> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': resultPartition(siteId, id) },
      ConsistentRead: true,
    });
    const parts = items.map(decodeResultPart);
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
