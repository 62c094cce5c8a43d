import { ADD_COMPETITOR } from '@cm/contract';
import { enqueue, tool } from '@cm/runtime';
import { addCompetitor } from '@cm/tools';

/** add_competitor: queues the first monitoring run (the monitor queue); calls no provider itself. */
export const handler = tool(ADD_COMPETITOR, addCompetitor, { enqueue });
