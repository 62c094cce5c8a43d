import {
  PutCommand,
  UpdateCommand,
  type DeleteCommand,
  type DynamoDBDocumentClient,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { errorFacts } from './errors';
import type { Key } from './keys';
import type { Update } from './update';

/** Whether a write failed only because its condition was false. */
const conditionFailed = (error: unknown): boolean => errorFacts(error).name === 'ConditionalCheckFailedException';

/*
 * A conditional write answers whether its condition held, as a value: each caller says what a failed
 * condition means in its own terms (refused, lost to another caller, done already), and every other
 * error stays an error. The reason is not asked of the write (`ReturnValuesOnConditionCheckFailure`):
 * dynalite has no such parameter, so a caller that must say why reads the item after.
 */

/** A conditional write's outcome: written, with the attributes it returned (decoded), or its condition was false. */
export type Written<T = Record<string, unknown>> = { ok: true; attributes: T } | { ok: false };

type ReturnValues = NonNullable<UpdateCommandInput['ReturnValues']>;

type Write = PutCommand | UpdateCommand | DeleteCommand;

/** The client's `send` is typed per command, so each kind is sent as itself. */
const send = (db: DynamoDBDocumentClient, command: Write) =>
  command instanceof PutCommand
    ? db.send(command)
    : command instanceof UpdateCommand
      ? db.send(command)
      : db.send(command);

/** One conditional PutItem, UpdateItem or DeleteItem: `ok: false` when its condition was false; any other error is thrown. */
export async function conditionalWrite(db: DynamoDBDocumentClient, command: Write): Promise<Written>;
export async function conditionalWrite<T>(
  db: DynamoDBDocumentClient,
  command: Write,
  decode: (attributes: Record<string, unknown>) => T,
): Promise<Written<T>>;
export async function conditionalWrite<T>(
  db: DynamoDBDocumentClient,
  command: Write,
  decode?: (attributes: Record<string, unknown>) => T,
): Promise<Written<T | Record<string, unknown>>> {
  try {
    const out = await send(db, command);
    const attributes = out.Attributes ?? {};
    return { ok: true, attributes: decode ? decode(attributes) : attributes };
  } catch (error) {
    if (conditionFailed(error)) return { ok: false };
    throw error;
  }
}

/** One UpdateItem of `update` (its condition included) on the item at `key`, as `conditionalWrite` answers it. */
export function conditionalUpdate<T>(
  db: DynamoDBDocumentClient,
  table: string,
  key: Key,
  update: Update,
  options: { returns: ReturnValues; decode: (attributes: Record<string, unknown>) => T },
): Promise<Written<T>>;
export function conditionalUpdate(
  db: DynamoDBDocumentClient,
  table: string,
  key: Key,
  update: Update,
  options?: { returns?: ReturnValues },
): Promise<Written>;
export function conditionalUpdate<T>(
  db: DynamoDBDocumentClient,
  table: string,
  key: Key,
  update: Update,
  options: { returns?: ReturnValues; decode?: (attributes: Record<string, unknown>) => T } = {},
): Promise<Written<T | Record<string, unknown>>> {
  const command = new UpdateCommand({
    TableName: table,
    Key: key,
    ...update.input(),
    ...(options.returns ? { ReturnValues: options.returns } : {}),
  });
  return options.decode ? conditionalWrite(db, command, options.decode) : conditionalWrite(db, command);
}
