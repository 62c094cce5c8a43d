import { TRACK_RANKINGS } from '@cm/contract';
import { enqueue, tool } from '@cm/runtime';
import { trackRankings } from '@cm/tools';

/** track_rankings: the site's rank tracking; queues a scope's first check (the rank queue); calls no provider itself. */
export const handler = tool(TRACK_RANKINGS, trackRankings, { enqueue });
