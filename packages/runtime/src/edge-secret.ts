import { getConfig } from './config';
import { readSecretText } from './secrets';

/*
 * The origin secret CloudFront adds to what it sends on (x-origin-verify): proof a request passed WAF.
 * On AWS the environment names its secret, read at run time; the local stack and tests give the value.
 */

/** Whether the deployment is behind CloudFront: its origin secret is set, by value or by name. */
export function behindEdge(): boolean {
  const { originVerify, originVerifySecret } = getConfig();
  return originVerify !== undefined || originVerifySecret !== undefined;
}

/** The origin secret (kept as secrets are: see readSecretText); undefined when not behind CloudFront. */
export async function originVerify(): Promise<string | undefined> {
  const config = getConfig();
  if (config.originVerify !== undefined) return config.originVerify;
  return config.originVerifySecret === undefined ? undefined : readSecretText(config.originVerifySecret);
}
