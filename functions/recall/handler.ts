import { tool } from '@cm/runtime';
import { recall } from '@cm/tools';

export const handler = tool('recall', recall);
