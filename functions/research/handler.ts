import { tool } from '@cm/runtime';
import { research } from '@cm/tools';

export const handler = tool('research', research);
