import * as z from 'zod/mini';
import { LIMITS } from '../limits';
import { withEstimate } from '../estimate';
import { TrackRankingsFields, TrackRankingsInput } from '../ranks';
import { ToolMeta } from './shared';
import { defineTool } from './declaration';

export const TrackRankingsResult = z.object({ ...ToolMeta, ...TrackRankingsFields });

export const TRACK_RANKINGS = defineTool({
  name: 'track_rankings',
  title: 'Track keyword rankings over time',
  description: `Google positions over time of a topic's committed keywords (top max_keywords by score, default ${LIMITS.trackKeywordsDefault}, max ${LIMITS.trackKeywordsMax}) or a page's, daily or weekly (off stops), at depth (default top ${LIMITS.rankDepthDefault}, max ${LIMITS.rankDepthMax}), a site setting; first check now. Answers the tracking and its monthly cost; no scope lists it. Read: serp_landscape history_days. Deleting the topic, page or keyword stops it.`,
  input: TrackRankingsInput,
  result: withEstimate(TrackRankingsResult),
  // Tracking off deletes the scope's item (DeleteItem); tracking on queues the scope's first check.
  grants: { table: 'readWriteDelete', sendsTo: ['rank', 'budget-warning'] },
});
