import { DEFAULT_BEDROCK_MODEL } from '@cm/runtime';

/** Cross-region inference profiles carry a geography prefix (`us.anthropic…`) before the model id. */
const INFERENCE_PROFILE = /^(us|eu|apac|jp|au|us-gov|global)\.(.+)$/;

/** The model an inference profile id routes to (`us.anthropic.x` → `anthropic.x`); undefined for a plain model id. */
export function profiledModel(modelId: string): string | undefined {
  return INFERENCE_PROFILE.exec(modelId)?.[2];
}

/**
 * The geography of each commercial region family: a profile is invoked from a source region of its own
 * geography. GovCloud (`us-gov-…`), ISO and China regions have other names and partitions, so they do not match.
 */
const GEOGRAPHY: Record<string, string> = { us: 'us', eu: 'eu', ap: 'apac' };
const COMMERCIAL_REGION = /^([a-z]{2})-(?:north|south|east|west|central)+-\d+$/;

/**
 * The default model's inference profile for a stack in `region`: the same model, under the profile of
 * the region's geography. Without a region (an environment-agnostic synth) it is the default itself, a
 * US profile. A region outside the US, Europe and Asia Pacific has no geography profile: the synth stops.
 */
export function defaultBedrockModel(region: string | undefined): string {
  if (region === undefined) return DEFAULT_BEDROCK_MODEL;
  const model = profiledModel(DEFAULT_BEDROCK_MODEL) ?? DEFAULT_BEDROCK_MODEL;
  const family = COMMERCIAL_REGION.exec(region)?.[1];
  const geography = family === undefined ? undefined : GEOGRAPHY[family];
  if (geography === undefined)
    throw new Error(
      `No inference profile of ${model} is chosen for ${region}: deploy with -c bedrockModelId=global.${model} (any commercial region) or another model or profile Bedrock serves there`,
    );
  return `${geography}.${model}`;
}
