import { getKeywordData, tool } from '@cm/runtime';
import { getKeywords } from '@cm/tools';

/** get_keywords: keyword data from DataForSEO (or the sandbox). */
export const handler = tool('get_keywords', getKeywords, { keywordData: getKeywordData });
