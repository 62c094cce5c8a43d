import { enqueue, getKeywordData, tool } from '@cm/runtime';
import { serpLandscape } from '@cm/tools';

/** serp_landscape: keyword and SERP data; analyze queues its keywords' research. */
export const handler = tool('serp_landscape', serpLandscape, { keywordData: getKeywordData, enqueue });
