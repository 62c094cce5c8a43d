import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * The credential provider of the Lambda bundles, put in place of `@aws-sdk/credential-provider-node`
 * by esbuild (aliasesOf in ./bundling.ts). Lambda hands a function its role's credentials in the
 * environment, so the rest of the default chain (ini files, SSO, process, web identity, with their
 * STS and SSO clients) is never used there. Local runs import the real chain.
 * @public imported by the SDK under the name it replaces, not by this repo's code
 */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}): ReturnType<typeof fromEnv> => {
  const env = fromEnv(init);
  return async () => {
    try {
      return await env();
    } catch (cause) {
      throw new Error(
        'No AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY): the Lambda bundles read credentials from the environment only.',
        { cause },
      );
    }
  };
};
