import { GET_KEYWORDS } from '@cm/contract';
import { enqueue, getKeywordData, tool } from '@cm/runtime';
import { getKeywords } from '@cm/tools';

/** get_keywords: keyword data from DataForSEO (or the sandbox); the site's budget warnings go to their queue. */
export const handler = tool(GET_KEYWORDS, getKeywords, { keywordData: getKeywordData, enqueue });
