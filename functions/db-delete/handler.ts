import { DB_DELETE } from '@cm/contract';
import { tool } from '@cm/runtime';
import { dbDelete } from '@cm/tools';

export const handler = tool(DB_DELETE, dbDelete);
