import type middy from '@middy/core';
import { ApiError, fieldError } from '@cm/contract';
import { InvalidCursor, ItemTooLarge, StoreUnavailable } from '@cm/store/errors';
import { observationOf } from '../observability';
import { serviceUnavailable } from './errors';
import { json } from './replies';
import type { ApiEvent, ApiResult } from './request';

/**
 * The one error shape (docs/api.md#errors) for every failure; anything unexpected is logged with its stack and
 * answered 500 with no detail.
 */
export const errorReplies = (): middy.MiddlewareObj<ApiEvent, ApiResult> => ({
  onError: async (request) => {
    const error = apiErrorOf(request.error, request.event);
    const { log } = observationOf(request.context);
    if (error instanceof ApiError) {
      request.response = json(error.status, error.toBody(), error.headers);
      const line = {
        status: error.status,
        code: error.code,
        ...(error === request.error ? {} : { cause: request.error?.message }),
      };
      if (error.status >= 500) log.warn('answered with an error', line);
      else log.info('answered', line);
      return;
    }
    log.error('unhandled error', { error });
    request.response = json(500, { error: 'internal_error', code: 'internal_error', message: 'Internal error' });
  },
});

/**
 * The store's refusals in HTTP terms. A cursor is a query parameter of GET listings and a body field
 * of the tools (POST).
 */
function apiErrorOf(error: unknown, event: ApiEvent): unknown {
  if (error instanceof InvalidCursor)
    return fieldError(event.requestContext.http.method === 'GET' ? 'query' : 'body', 'cursor', error.message);
  if (error instanceof StoreUnavailable) return serviceUnavailable('The data store cannot be reached');
  // Never a 500: what was sent is too large to store as one item (DynamoDB's 400 KB).
  if (error instanceof ItemTooLarge)
    return new ApiError('payload_too_large', 'What was sent is too large to store (an item over 400 KB); send less', {
      limit_bytes: ITEM_LIMIT_BYTES,
    });
  return error;
}

/** DynamoDB's limit on one item, in bytes. */
const ITEM_LIMIT_BYTES = 400 * 1024;
