import { postIndexNow } from '@cm/providers/indexnow';
import type { SubmitToIndexNow } from '@cm/publishing';
import { getConfig } from './config';

/** The INDEXNOW_ENDPOINT that sends nothing: the local stack's default, offline as its sandbox providers are. */
export const INDEXNOW_SANDBOX = 'sandbox';

/** IndexNow's endpoint as this deployment names it (INDEXNOW_ENDPOINT); the sandbox takes every request, offline. */
export const indexNowSubmit: SubmitToIndexNow = (request) => {
  const endpoint = getConfig().indexNowEndpoint;
  return endpoint === INDEXNOW_SANDBOX
    ? Promise.resolve({ status: 202, retryAfterMs: null })
    : postIndexNow(endpoint, request);
};
