import { propertyOf } from '@cm/contract';

/* How a provider call fails: the provider's fault (ProviderError), or the caller's URL (UrlRefused). */

/**
 * A provider failed after its retries; `retryable` tells the caller whether trying later may help, and
 * `timedOut` that the provider gave no answer in time (it is down or hanging, not refusing).
 */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly retryable: boolean,
    readonly code?: number,
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/**
 * A paid call whose outcome is unknown: it got no answer, or one that says nothing of what it did. It
 * may have been made and billed, so it is not made again (a rank check's post keeps its claims).
 */
export class UnknownOutcome extends ProviderError {
  constructor(provider: string, message: string, timedOut: boolean) {
    super(provider, message, true, undefined, timedOut);
    this.name = 'UnknownOutcome';
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
 * A field of a thrown value (its `message`, its `code`) as a template prints it, `undefined` when it has
 * none. Read as a property, not through `instanceof Error`: under jest, errors of Node's own come from
 * another realm.
 */
export const errorField = (error: unknown, field: 'message' | 'code'): string => String(propertyOf(error, field));

/** Whether a failed request was cut by its time limit (an AbortSignal's timeout or abort) rather than refused. */
export const isTimeout = (error: unknown): boolean => {
  const name = String(propertyOf(error, 'name'));
  return name === 'TimeoutError' || name === 'AbortError';
};
