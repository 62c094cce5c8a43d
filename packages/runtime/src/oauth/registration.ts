import { createHash, randomBytes } from 'node:crypto';

/*
 * Dynamic Client Registration's client ids (docs/api/oauth.md#the-authorization-server). A public
 * client (no secret) is wholly its metadata, so its id is made of it: a host that registers afresh for
 * each connection, with the same body, gets the same client back, and adds no item. A confidential
 * client's secret is its own, shown once and kept as its hash: each registration is a client of its own.
 */

/** `value` as JSON with every object's keys in order: the same metadata, however its keys were sent. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(Reflect.get(value, key))}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** The client id of a registration request's `metadata`: made of it for a public client, else random. */
export function registrationId(metadata: Record<string, unknown> | undefined): string {
  if (metadata?.token_endpoint_auth_method !== 'none') return randomBytes(16).toString('base64url');
  return `pub_${createHash('sha256').update(canonical(metadata)).digest('base64url')}`;
}
