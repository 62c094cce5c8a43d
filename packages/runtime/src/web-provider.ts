import { SandboxResearch, type ResearchProvider } from '@cm/providers';
import { BedrockSynthesis, TavilySearch, WebResearch } from '@cm/providers/web';
import { getConfig, type Config } from './config';
import { logger } from './observability';
import { readSecret } from './secrets';

/*
 * Picks the web research provider (Tavily and Bedrock, or the sandbox), for the research worker alone:
 * importing this module brings the Bedrock client and the url fetcher's DOM into a bundle, so nothing
 * else imports it.
 */

/** Tavily's key: from the environment, or from the secret as read in the last few minutes; null for the sandbox. */
async function tavilyKey(config: Config): Promise<string | null> {
  const { tavilyApiKey, tavilySecret } = config.research;
  return tavilyApiKey ?? (tavilySecret ? (await readSecret(tavilySecret, ['api_key'])).api_key : null);
}

function researchWith(config: Config, apiKey: string | null): ResearchProvider {
  const { research } = config;
  if (!apiKey) return new SandboxResearch(config.sandboxResearchMs, research.bedrockModelId);
  return new WebResearch({
    search: new TavilySearch({ apiKey, baseUrl: research.tavilyBaseUrl }),
    synthesis: new BedrockSynthesis({
      modelId: research.bedrockModelId,
      region: config.region,
      endpoint: research.bedrockEndpoint,
      warn: (message, details) => logger.warn(message, details),
    }),
  });
}

/** Tavily with its key (from the environment or Secrets Manager) and Bedrock synthesis; without a key, the sandbox. */
export async function selectResearch(config: Config): Promise<ResearchProvider> {
  return researchWith(config, await tavilyKey(config));
}

let cached: { config: Config; apiKey: string | null; provider: ResearchProvider } | undefined;

/**
 * The research provider, made again only when the configuration or Tavily's key changed (a rotated secret
 * shows within `secretMaxAgeSeconds`); a failed secret read is tried again on the next job.
 */
export async function getResearch(): Promise<ResearchProvider> {
  const config = getConfig();
  const apiKey = await tavilyKey(config);
  if (cached?.config !== config || cached.apiKey !== apiKey)
    cached = { config, apiKey, provider: researchWith(config, apiKey) };
  return cached.provider;
}
