import { postIndexNow } from '@cm/providers/indexnow';
import type { SubmitToIndexNow } from '@cm/publishing';
import { getConfig } from './config';

/** IndexNow's endpoint as this deployment names it (INDEXNOW_ENDPOINT). */
export const indexNowSubmit: SubmitToIndexNow = (request) => postIndexNow(getConfig().indexNowEndpoint, request);
