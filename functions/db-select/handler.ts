import { DB_SELECT } from '@cm/contract';
import { tool } from '@cm/runtime';
import { dbSelect } from '@cm/tools';

export const handler = tool(DB_SELECT, dbSelect);
