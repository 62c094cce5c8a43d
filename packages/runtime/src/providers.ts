import {
  DataForSeoBacklinkData,
  DataForSeoKeywordData,
  DataForSeoSerpQueue,
  SandboxBacklinkData,
  SandboxKeywordData,
  SandboxSerpQueue,
  type SerpTaskQueue,
  WEB_RESEARCH,
  type BacklinkDataProvider,
  type KeywordDataProvider,
} from '@cm/providers';
import { isJsonObject, SERVICE_LIMITS } from '@cm/contract';
import type { DataForSeoConfig, ResearchConfig } from './config';

type Secret = Record<string, unknown>;

const isSet = (secret: Secret, field: string) => typeof secret[field] === 'string' && secret[field] !== '';
const hasFields = <K extends string>(secret: Secret, fields: readonly K[]): secret is Secret & Record<K, string> =>
  fields.every((field) => isSet(secret, field));

/**
 * Reads a JSON secret from Secrets Manager (in the region of AWS_REGION) and checks it has `fields`.
 * Powertools Parameters keeps a value it read for `secretMaxAgeSeconds`, so a rotated secret reaches
 * warm functions within that, with no redeploy; a failed read is not kept, and is tried again on the next call.
 */
export async function readSecret<K extends string>(secretId: string, fields: readonly K[]): Promise<Record<K, string>> {
  // Imported when read, so only the functions that read a secret bundle the Secrets Manager client.
  const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
  const read = await getSecret(secretId, { transform: 'json', maxAge: SERVICE_LIMITS.secretMaxAgeSeconds });
  const value: Secret = isJsonObject(read) ? read : {};
  if (hasFields(value, fields)) return value;
  // Not kept either: the secret may be completed at any moment.
  const { clearCaches } = await import('@aws-lambda-powertools/parameters');
  clearCaches();
  const missing = fields.filter((field) => !isSet(value, field));
  throw new Error(`secret ${secretId} has no ${missing.map((f) => `"${f}"`).join(' and ')}`);
}

export interface DataForSeoCredentials {
  login: string;
  password: string;
}

/** DataForSEO's credentials from the environment, or from the named secret; null without either (the sandbox). */
export async function dataforseoCredentials(config: DataForSeoConfig): Promise<DataForSeoCredentials | null> {
  if (config.login && config.password) return { login: config.login, password: config.password };
  return config.secret ? readSecret(config.secret, ['login', 'password']) : null;
}

/** DataForSEO's keyword data with credentials, else the sandbox's. */
export const keywordDataFor = (
  credentials: DataForSeoCredentials | null,
  config: DataForSeoConfig,
): KeywordDataProvider =>
  credentials
    ? new DataForSeoKeywordData({ ...credentials, baseUrl: config.baseUrl, timeoutMs: config.timeoutMs })
    : new SandboxKeywordData();

/** DataForSEO's SERP standard queue with credentials, else the sandbox's (rank checks). */
export const serpQueueFor = (credentials: DataForSeoCredentials | null, config: DataForSeoConfig): SerpTaskQueue =>
  credentials
    ? new DataForSeoSerpQueue({
        ...credentials,
        baseUrl: config.baseUrl,
        timeoutMs: config.timeoutMs,
        taskReadySeconds: config.taskReadySeconds,
      })
    : new SandboxSerpQueue();

/** DataForSEO Backlinks with credentials, else the sandbox's backlink data. */
export const backlinkDataFor = (
  credentials: DataForSeoCredentials | null,
  config: DataForSeoConfig,
): BacklinkDataProvider =>
  credentials
    ? new DataForSeoBacklinkData({ ...credentials, baseUrl: config.baseUrl, timeoutMs: config.timeoutMs })
    : new SandboxBacklinkData();

/** The keyword data provider the configuration names: DataForSEO with credentials, else the sandbox. */
export async function selectKeywordData(config: DataForSeoConfig): Promise<KeywordDataProvider> {
  return keywordDataFor(await dataforseoCredentials(config), config);
}

/** The `data_source` web research will have, known without building the provider (which only the worker does). */
export const researchSource = (config: ResearchConfig): string =>
  config.tavilyApiKey || config.tavilySecret ? WEB_RESEARCH : 'sandbox';
