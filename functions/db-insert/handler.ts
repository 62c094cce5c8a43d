import { DB_INSERT } from '@cm/contract';
import { tool } from '@cm/runtime';
import { dbInsert } from '@cm/tools';

export const handler = tool(DB_INSERT, dbInsert);
