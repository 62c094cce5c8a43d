/* How a provider call fails: the provider's fault (ProviderError), or the caller's URL (UrlRefused). */

/** A provider failed after its retries; `retryable` tells the caller whether trying later may help. */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly retryable: boolean,
    readonly code?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** url research may not or cannot read the URL: the caller's fault, not a provider failure, and never retried. */
export class UrlRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'UrlRefused';
  }
}

/**
 * A field of a thrown value (its `message`, its `code`) as text, `undefined` when it has none. Read as a
 * property, not through `instanceof Error`: under jest, errors of Node's own come from another realm.
 */
export function errorField(error: unknown, field: 'message' | 'code'): string {
  const value: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, field) : undefined;
  return String(value);
}
