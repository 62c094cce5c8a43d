import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface ClientOptions {
  /** A local DynamoDB (the embedded one); unset on AWS. */
  endpoint?: string;
  region?: string;
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
    maxAttempts: 4,
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
