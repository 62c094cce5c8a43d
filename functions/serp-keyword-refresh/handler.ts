import { tool } from '@cm/runtime';
import { serpKeywordRefresh } from '@cm/tools';

export const handler = tool('serp_keyword_refresh', serpKeywordRefresh);
