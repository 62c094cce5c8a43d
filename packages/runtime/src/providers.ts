import { DataForSeoKeywordData, SandboxKeywordData, WEB_RESEARCH, type KeywordDataProvider } from '@cm/providers';
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

/** The keyword data provider the configuration names: DataForSEO with credentials, else the sandbox. */
export async function selectKeywordData(config: DataForSeoConfig, region?: string): Promise<KeywordDataProvider> {
  const credentials =
    config.login && config.password
      ? { login: config.login, password: config.password }
      : config.secret
        ? await readSecret(config.secret, ['login', 'password'], region)
        : null;
  if (!credentials) return new SandboxKeywordData();
  return new DataForSeoKeywordData({ ...credentials, baseUrl: config.baseUrl });
}

/** The `data_source` web research will have, known without building the provider (which only the worker does). */
export const researchSource = (config: ResearchConfig): string => (config.tavilyApiKey || config.tavilySecret ? WEB_RESEARCH : 'sandbox');
