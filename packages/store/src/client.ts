import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { errorFacts, isItemTooLarge, ItemTooLarge, StoreUnavailable } from './errors';

export interface ClientOptions {
  /** A local DynamoDB (the embedded one); unset on AWS. */
  endpoint?: string;
  region?: string;
  /**
   * How long a request may go without a byte (default STORE_CLIENT_LIMITS.requestTimeoutMs). The test
   * stacks give their embedded DynamoDB longer: a busy machine, not an outage, is what slows it there.
   */
  requestTimeoutMs?: number;
  /**
   * How long a connection may take to open (default STORE_CLIENT_LIMITS.connectionTimeoutMs). A test's
   * embedded DynamoDB accepts connections on the test's own event loop, so a burst of them on a busy
   * machine can take longer than a DynamoDB that is down would be given.
   */
  connectionTimeoutMs?: number;
}

/**
 * How long the client waits, so a DynamoDB that stops answering fails a request within seconds
 * instead of hanging it until the function's time limit: a connection must open within
 * `connectionTimeoutMs`, a request may go `requestTimeoutMs` without a byte, and a failed attempt
 * is tried `maxAttempts` times in all (with the SDK's backoff). About 7 s at worst.
 */
export const STORE_CLIENT_LIMITS = { connectionTimeoutMs: 1_000, requestTimeoutMs: 2_000, maxAttempts: 3 } as const;

/**
 * Node's codes of a connection that could not be made or was lost. They are matched in the message too:
 * the SDK re-wraps an error of another realm (a test's sandbox) as a plain Error of its text.
 */
const CONNECTION_FAILURE = /\b(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)\b/;
const THROTTLED = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded']);

/** Whether a failure, after the retries, says DynamoDB cannot serve now (rather than that the request was wrong). */
function unavailable(error: unknown): boolean {
  const { name, code, message, fault } = errorFacts(error);
  return (
    name === 'TimeoutError' ||
    CONNECTION_FAILURE.test(`${code} ${message}`) ||
    fault === 'server' ||
    THROTTLED.has(name)
  );
}

export function createDocumentClient(options: ClientOptions = {}): DynamoDBDocumentClient {
  const local = options.endpoint !== undefined;
  const client = new DynamoDBClient({
    ...(local
      ? {
          endpoint: options.endpoint,
          region: options.region ?? 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : { region: options.region }),
    maxAttempts: STORE_CLIENT_LIMITS.maxAttempts,
    requestHandler: {
      connectionTimeout: options.connectionTimeoutMs ?? STORE_CLIENT_LIMITS.connectionTimeoutMs,
      requestTimeout: options.requestTimeoutMs ?? STORE_CLIENT_LIMITS.requestTimeoutMs,
      // Without it a request past its timeout is only logged, and goes on waiting.
      throwOnRequestTimeout: true,
    },
  });
  // Outside the retries: what is left once they are spent is said in the store's terms.
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (isItemTooLarge(error)) throw new ItemTooLarge(error);
        throw unavailable(error) ? new StoreUnavailable(error) : error;
      }
    },
    { step: 'initialize', name: 'storeUnavailable' },
  );
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
