import { RECALL } from '@cm/contract';
import { tool } from '@cm/runtime';
import { recall } from '@cm/tools';

export const handler = tool(RECALL, recall);
