import {
  DataForSeoBacklinkData,
  DataForSeoKeywordData,
  DataForSeoSerpQueue,
  SandboxBacklinkData,
  SandboxKeywordData,
  SandboxSearchConsole,
  SandboxSerpQueue,
  googleSearchConsole,
  serviceAccountKey,
  type SearchConsoleProvider,
  type SerpTaskQueue,
  type ServiceAccountKey,
  WEB_RESEARCH,
  type BacklinkDataProvider,
  type KeywordDataProvider,
} from '@cm/providers';

import type { DataForSeoConfig, ResearchConfig, SearchConsoleConfig } from './config';
import { readSecret } from './secrets';

export interface DataForSeoCredentials {
  login: string;
  password: string;
}

/** DataForSEO's credentials from the environment, or from the named secret; null without either (the sandbox). */
export async function dataforseoCredentials(config: DataForSeoConfig): Promise<DataForSeoCredentials | null> {
  if (config.login && config.password) return { login: config.login, password: config.password };
  return config.secret ? readSecret(config.secret, ['login', 'password']) : null;
}

/** Search Console's service account key from the environment, or from the named secret; null without either (the sandbox). */
export async function searchConsoleKey(config: SearchConsoleConfig): Promise<ServiceAccountKey | null> {
  if (config.key) return serviceAccountKey(jsonOf(config.key));
  return config.secret ? serviceAccountKey(await readSecret(config.secret, ['client_email', 'private_key'])) : null;
}

/** SEARCH_CONSOLE_KEY's JSON; text that is not JSON is refused as a key would be. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
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

/** Search Console: Google's with the deployment's service account key, else the sandbox's. */
export const searchConsoleFor = (key: ServiceAccountKey | null): SearchConsoleProvider =>
  key ? googleSearchConsole(key) : new SandboxSearchConsole();
