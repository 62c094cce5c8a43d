import { RESEARCH } from '@cm/contract';
import { enqueue, getKeywordData, tool } from '@cm/runtime';
import { research } from '@cm/tools';

/** research: keyword data for keywords mode; web, reddit and url jobs go to the research queue. */
export const handler = tool(RESEARCH, research, { keywordData: getKeywordData, enqueue });
