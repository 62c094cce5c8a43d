import { tool } from '@cm/runtime';
import { serpBacklinks } from '@cm/tools';

export const handler = tool('serp_backlinks', serpBacklinks);
