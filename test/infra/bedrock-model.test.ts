import { DEFAULT_BEDROCK_MODEL } from '@cm/runtime';
import { defaultBedrockModel, profiledModel } from '../../infra/bedrock-model';

const MODEL = 'anthropic.claude-haiku-4-5-20251001-v1:0';

it('is a US inference profile of the default model, which the other geographies take after', () => {
  expect(DEFAULT_BEDROCK_MODEL).toBe(`us.${MODEL}`);
  expect(profiledModel(DEFAULT_BEDROCK_MODEL)).toBe(MODEL);
  expect(profiledModel(`global.${MODEL}`)).toBe(MODEL);
  expect(profiledModel(MODEL)).toBeUndefined();
});

it.each([
  ['us-east-1', 'us'],
  ['us-east-2', 'us'],
  ['us-west-2', 'us'],
  ['eu-west-1', 'eu'],
  ['eu-central-1', 'eu'],
  ['eu-north-1', 'eu'],
  ['eu-south-2', 'eu'],
  ['ap-northeast-1', 'apac'],
  ['ap-southeast-2', 'apac'],
  ['ap-south-1', 'apac'],
])("chooses the default model's profile of %s's geography", (region, geography) => {
  expect(defaultBedrockModel(region)).toBe(`${geography}.${MODEL}`);
});

it.each(['sa-east-1', 'ca-central-1', 'me-central-1', 'af-south-1', 'il-central-1', 'us-gov-west-1', 'cn-north-1'])(
  'stops the synth in %s, which no geography profile serves, naming the context that chooses one',
  (region) => {
    expect(() => defaultBedrockModel(region)).toThrow(`-c bedrockModelId=global.${MODEL}`);
  },
);

it('keeps the US profile when the region is unknown (an environment-agnostic synth)', () => {
  expect(defaultBedrockModel(undefined)).toBe(DEFAULT_BEDROCK_MODEL);
});
