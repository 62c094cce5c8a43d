import { tool } from '@cm/runtime';
import { dbInsert } from '@cm/tools';

export const handler = tool('db_insert', dbInsert);
