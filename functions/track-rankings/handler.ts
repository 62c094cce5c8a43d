import { enqueue, tool } from '@cm/runtime';
import { trackRankings } from '@cm/tools';

/** track_rankings: the site's rank tracking; queues a scope's first check (the rank queue); calls no provider itself. */
export const handler = tool('track_rankings', trackRankings, { enqueue });
