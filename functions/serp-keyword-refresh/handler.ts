import { SERP_KEYWORD_REFRESH } from '@cm/contract';
import { enqueue, getKeywordData, tool } from '@cm/runtime';
import { serpKeywordRefresh } from '@cm/tools';

/** serp_keyword_refresh: a live SERP pull, under the daily quota; the site's budget warnings go to their queue. */
export const handler = tool(SERP_KEYWORD_REFRESH, serpKeywordRefresh, { keywordData: getKeywordData, enqueue });
