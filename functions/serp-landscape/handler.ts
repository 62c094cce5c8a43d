import { tool } from '@cm/runtime';
import { serpLandscape } from '@cm/tools';

export const handler = tool('serp_landscape', serpLandscape);
