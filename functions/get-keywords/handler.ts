import { tool } from '@cm/runtime';
import { getKeywords } from '@cm/tools';

export const handler = tool('get_keywords', getKeywords);
