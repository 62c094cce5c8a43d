import {
  DataForSeoBacklinkData,
  DataForSeoKeywordData,
  SandboxBacklinkData,
  SandboxKeywordData,
  WEB_RESEARCH,
  type BacklinkDataProvider,
  type KeywordDataProvider,
} from '@cm/providers';
import type { DataForSeoConfig, ResearchConfig } from './config';

/** Reads a JSON secret from Secrets Manager (once per container, by the caller) and checks it has `fields`. */
export async function readSecret<K extends string>(secretId: string, fields: readonly K[], region?: string): Promise<Record<K, string>> {
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({ region });
  const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  const value = JSON.parse(out.SecretString ?? '{}') as Partial<Record<K, unknown>>;
  const missing = fields.filter((field) => typeof value[field] !== 'string' || !value[field]);
  if (missing.length > 0) throw new Error(`secret ${secretId} has no ${missing.map((f) => `"${f}"`).join(' and ')}`);
  return value as Record<K, string>;
}

export interface DataForSeoCredentials {
  login: string;
  password: string;
}

/** DataForSEO's credentials from the environment, or from the named secret; null without either (the sandbox). */
export async function dataforseoCredentials(config: DataForSeoConfig, region?: string): Promise<DataForSeoCredentials | null> {
  if (config.login && config.password) return { login: config.login, password: config.password };
  return config.secret ? readSecret(config.secret, ['login', 'password'], region) : null;
}

/** DataForSEO's keyword data with credentials, else the sandbox's. */
export const keywordDataFor = (credentials: DataForSeoCredentials | null, baseUrl?: string): KeywordDataProvider =>
  credentials ? new DataForSeoKeywordData({ ...credentials, baseUrl }) : new SandboxKeywordData();

/** DataForSEO Backlinks with credentials, else the sandbox's backlink data. */
export const backlinkDataFor = (credentials: DataForSeoCredentials | null, baseUrl?: string): BacklinkDataProvider =>
  credentials ? new DataForSeoBacklinkData({ ...credentials, baseUrl }) : new SandboxBacklinkData();

/** The keyword data provider the configuration names: DataForSEO with credentials, else the sandbox. */
export async function selectKeywordData(config: DataForSeoConfig, region?: string): Promise<KeywordDataProvider> {
  return keywordDataFor(await dataforseoCredentials(config, region), config.baseUrl);
}

/** The `data_source` web research will have, known without building the provider (which only the worker does). */
export const researchSource = (config: ResearchConfig): string => (config.tavilyApiKey || config.tavilySecret ? WEB_RESEARCH : 'sandbox');
