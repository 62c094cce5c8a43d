/** Configuration from the environment: the same names on Lambda and in the local stack. */
export interface Config {
  tableName: string;
  /** Set for the embedded DynamoDB; unset on AWS. */
  dynamoEndpoint?: string;
  region?: string;
  /** Base URL of visitor pages; by default the URL the request came in on. */
  publicBaseUrl?: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const tableName = env.TABLE_NAME;
  if (!tableName) throw new Error('TABLE_NAME is not set');
  return {
    tableName,
    dynamoEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    region: env.AWS_REGION || undefined,
    publicBaseUrl: env.PUBLIC_BASE_URL?.replace(/\/+$/, '') || undefined,
  };
}
