import { SandboxResearch, type ResearchProvider } from '@cm/providers';
import { BedrockSynthesis, TavilySearch, WebResearch } from '@cm/providers/web';
import { getConfig, type Config } from './config';
import { logger } from './observability';
import { readSecret } from './providers';

/*
 * Web research providers, for the research worker alone: importing this module brings the Bedrock
 * client and the url fetcher's DOM into a bundle, so nothing else imports it.
 */

/** Tavily with its key (from the environment or Secrets Manager) and Bedrock synthesis; without a key, the sandbox. */
export async function selectResearch(config: Config): Promise<ResearchProvider> {
  const { research } = config;
  const apiKey = research.tavilyApiKey ?? (research.tavilySecret ? (await readSecret(research.tavilySecret, ['api_key'], config.region)).api_key : null);
  if (!apiKey) return new SandboxResearch(config.sandboxResearchMs);
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

let cached: { config: Config; provider: Promise<ResearchProvider> } | undefined;

/** The research provider, made once per container; a failed secret read is tried again on the next job. */
export function getResearch(): Promise<ResearchProvider> {
  const config = getConfig();
  if (cached?.config !== config) {
    const provider = selectResearch(config).catch((error: unknown) => {
      cached = undefined;
      throw error;
    });
    cached = { config, provider };
  }
  return cached.provider;
}
