import { fetchClientMetadataDocument, type ClientMetadataFetchOptions } from '@cm/providers/client-metadata';

/*
 * Fetching clients' metadata documents for oidc-provider, which keeps a document it got (a minute to a
 * day) but not a failure: an authorization request whose document cannot be had looks its client up
 * again to answer the error, and would fetch it a second time, 5 s more. A failure is remembered for a
 * few seconds, so one request makes one fetch and answers within the documented 5 s.
 */

/** How long a failed fetch is answered from memory: past one request, short of a host's fix. */
const FAILURE_MEMORY_MS = 10_000;

/** The `fetch` oidc-provider calls for a client's metadata document. */
export function clientDocumentFetch(options: ClientMetadataFetchOptions) {
  const failures = new Map<string, { until: number; error: unknown }>();
  return async (resource: string | URL | Request): Promise<Response> => {
    const url = typeof resource === 'string' ? resource : resource instanceof URL ? resource.href : resource.url;
    const failed = failures.get(url);
    if (failed && failed.until > Date.now()) throw failed.error;
    try {
      return await fetchClientMetadataDocument(url, options);
    } catch (error) {
      // Only the last few seconds' failures are kept: each took a fetch, so there are few.
      const now = Date.now();
      for (const [key, kept] of failures) if (kept.until <= now) failures.delete(key);
      failures.set(url, { until: now + FAILURE_MEMORY_MS, error });
      throw error;
    }
  };
}
