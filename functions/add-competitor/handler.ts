import { tool } from '@cm/runtime';
import { addCompetitor } from '@cm/tools';

export const handler = tool('add_competitor', addCompetitor);
