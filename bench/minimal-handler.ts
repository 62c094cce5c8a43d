import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';

/** The smallest useful DynamoDB function: one client made at init, one GetItem per invocation. The benchmark's yardstick for bundle size and cold init. */
const client = new DynamoDBClient({});

/** @public The Lambda handler the benchmark bundles by path. */
export const handler = async (event: { id: string }) =>
  (
    await client.send(
      new GetItemCommand({ TableName: process.env.TABLE_NAME, Key: { pk: { S: event.id }, sk: { S: 'META' } } }),
    )
  ).Item ?? null;
