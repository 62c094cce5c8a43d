import { getKeywordData, tool } from '@cm/runtime';
import { serpKeywordRefresh } from '@cm/tools';

/** serp_keyword_refresh: a live SERP pull, under the daily quota. */
export const handler = tool('serp_keyword_refresh', serpKeywordRefresh, { keywordData: getKeywordData });
