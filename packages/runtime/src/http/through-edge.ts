import { createHash, timingSafeEqual } from 'node:crypto';
import type middy from '@middy/core';
import { ApiError, ORIGIN_VERIFY_HEADER } from '@cm/contract';
import { getConfig } from '../config';
import { originVerify } from '../edge-secret';
import type { ApiEvent, ApiResult } from './request';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Behind CloudFront (an origin secret set), a request that did not come through the distribution, which
 * adds the origin secret, is refused before anything reads its body or key: the API's own execute-api
 * URL and the function URL answer only what passed WAF's rate rules.
 */
export const throughEdge = (): middy.MiddlewareObj<ApiEvent, ApiResult> => ({
  before: async ({ event }) => {
    const secret = await originVerify();
    if (secret === undefined) return;
    const sent = event.headers[ORIGIN_VERIFY_HEADER];
    if (sent !== undefined && timingSafeEqual(digest(sent), digest(secret))) return;
    const at = getConfig().publicBaseUrl;
    throw new ApiError('edge_required', `This deployment answers only at its public address${at ? ` (${at})` : ''}`);
  },
});
