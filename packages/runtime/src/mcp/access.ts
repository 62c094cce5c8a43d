import { ApiError } from '@cm/contract';
import { siteOfKey } from '../api';
import { getConfig } from '../config';
import type { ApiEvent } from '../http';

/* Who may call the MCP endpoint: the browser origins allowed, and the caller's API key and site. */

const LOOPBACK = /^https?:\/\/(localhost|127(?:\.\d{1,3}){3}|\[::1\])(:\d+)?$/i;

/**
 * Whether a browser page of `origin` may call: loopback origins, the deployment's public base URL
 * (PUBLIC_BASE_URL) and MCP_ALLOWED_ORIGINS (comma-separated). The request's own Host is not trusted:
 * a DNS-rebound name would pass.
 */
export function originAllowed(origin: string): boolean {
  if (LOOPBACK.test(origin)) return true;
  const allowed = [getConfig().publicBaseUrl, ...getConfig().mcpAllowedOrigins]
    .map((o) => o?.trim().replace(/\/+$/, ''))
    .filter((o): o is string => !!o)
    .map((o) => {
      try {
        return new URL(o).origin;
      } catch {
        return o;
      }
    });
  return allowed.includes(origin.replace(/\/+$/, ''));
}

/** The API key of `X-API-Key`, else of `Authorization: Bearer <key>`. */
export function apiKeyOf(headers: ApiEvent['headers']): string | undefined {
  const key = headers['x-api-key']?.trim();
  if (key) return key;
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '');
  return bearer?.[1]?.trim() || undefined;
}

const unauthorized = (message: string) => new ApiError('unauthorized', message, {}, { 'www-authenticate': 'Bearer' });

/** The caller's key and site, before any MCP work: 403 for an origin not allowed, 401 for a missing or unknown key. */
export async function checkCaller(event: ApiEvent): Promise<{ apiKey: string; siteId: number }> {
  const origin = event.headers.origin;
  if (origin !== undefined && !originAllowed(origin))
    throw new ApiError('origin_not_allowed', `Origin ${origin} may not call this endpoint`, { origin });
  const apiKey = apiKeyOf(event.headers);
  if (!apiKey) throw unauthorized('Send the API key as X-API-Key or Authorization: Bearer');
  const siteId = await siteOfKey(apiKey);
  if (siteId === null) throw unauthorized('The API key is not valid');
  return { apiKey, siteId };
}
