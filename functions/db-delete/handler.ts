import { tool } from '@cm/runtime';
import { dbDelete } from '@cm/tools';

export const handler = tool('db_delete', dbDelete);
