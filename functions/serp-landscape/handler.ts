import { SERP_LANDSCAPE } from '@cm/contract';
import { enqueue, getKeywordData, tool } from '@cm/runtime';
import { serpLandscape } from '@cm/tools';

/** serp_landscape: keyword and SERP data; analyze queues its keywords' research. */
export const handler = tool(SERP_LANDSCAPE, serpLandscape, { keywordData: getKeywordData, enqueue });
