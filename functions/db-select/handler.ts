import { tool } from '@cm/runtime';
import { dbSelect } from '@cm/tools';

export const handler = tool('db_select', dbSelect);
