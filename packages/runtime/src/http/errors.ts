import { ApiError, SERVICE_LIMITS } from '@cm/contract';

/* The refusals the runtime raises itself, beyond what the contract's schemas refuse. */

/** `503 service_unavailable` with its Retry-After: the table cannot be reached, or the route's time ran out. */
export function serviceUnavailable(message: string): ApiError {
  const retryAfterMs = SERVICE_LIMITS.unavailableRetryAfterMs;
  return new ApiError(
    'service_unavailable',
    `${message}; try again in ${retryAfterMs / 1000} s`,
    { retry_after_ms: retryAfterMs },
    { 'retry-after': String(retryAfterMs / 1000) },
  );
}

/** `413 payload_too_large`: the body is over `limitBytes` (`bytes` long, when it was read whole). */
export function payloadTooLarge(limitBytes: number, bytes?: number): ApiError {
  const size = bytes === undefined ? `over ${limitBytes} bytes` : `${bytes} bytes`;
  return new ApiError('payload_too_large', `The body is ${size}; the limit is ${limitBytes}`, {
    limit_bytes: limitBytes,
  });
}
