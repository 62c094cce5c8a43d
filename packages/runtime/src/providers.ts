import { DataForSeoKeywordData, SandboxKeywordData, type KeywordDataProvider } from '@cm/providers';
import type { DataForSeoConfig } from './config';

interface Credentials {
  login: string;
  password: string;
}

/** Reads a `{"login", "password"}` secret from Secrets Manager (once per container, by the caller). */
async function secretCredentials(secretId: string, region?: string): Promise<Credentials> {
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({ region });
  const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  const value = JSON.parse(out.SecretString ?? '{}') as Partial<Credentials>;
  if (!value.login || !value.password) throw new Error(`secret ${secretId} has no "login" and "password"`);
  return { login: value.login, password: value.password };
}

/** The keyword data provider the configuration names: DataForSEO with credentials, else the sandbox. */
export async function selectKeywordData(config: DataForSeoConfig, region?: string): Promise<KeywordDataProvider> {
  const credentials =
    config.login && config.password
      ? { login: config.login, password: config.password }
      : config.secret
        ? await secretCredentials(config.secret, region)
        : null;
  if (!credentials) return new SandboxKeywordData();
  return new DataForSeoKeywordData({ ...credentials, baseUrl: config.baseUrl });
}
