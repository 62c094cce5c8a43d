import { isJsonObject, SERVICE_LIMITS } from '@cm/contract';

/*
 * Secrets read at run time from Secrets Manager (in the region of AWS_REGION), never from a function's
 * environment, which only names them. Powertools Parameters keeps a value it read for
 * `secretMaxAgeSeconds`, so a rotated secret reaches warm functions within that, with no redeploy; a
 * failed read is not kept, and is tried again on the next call. The client is imported when a secret
 * is read, so a function that reads none does not load it.
 */

type Secret = Record<string, unknown>;

const isSet = (secret: Secret, field: string) => typeof secret[field] === 'string' && secret[field] !== '';
const hasFields = <K extends string>(secret: Secret, fields: readonly K[]): secret is Secret & Record<K, string> =>
  fields.every((field) => isSet(secret, field));

/** Reads a JSON secret and checks it has `fields`. */
export async function readSecret<K extends string>(secretId: string, fields: readonly K[]): Promise<Record<K, string>> {
  const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
  const read = await getSecret(secretId, { transform: 'json', maxAge: SERVICE_LIMITS.secretMaxAgeSeconds });
  const value: Secret = isJsonObject(read) ? read : {};
  if (hasFields(value, fields)) return value;
  // Not kept either: the secret may be completed at any moment.
  const { clearCaches } = await import('@aws-lambda-powertools/parameters');
  clearCaches();
  const missing = fields.filter((field) => !isSet(value, field));
  throw new Error(`secret ${secretId} has no ${missing.map((f) => `"${f}"`).join(' and ')}`);
}

/** Reads a secret whose value is one string (a generated one: the OAuth secret, the origin secret). */
export async function readSecretText(secretId: string): Promise<string> {
  const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
  const read = await getSecret(secretId, { maxAge: SERVICE_LIMITS.secretMaxAgeSeconds });
  if (typeof read === 'string' && read !== '') return read;
  throw new Error(`secret ${secretId} has no text`);
}
