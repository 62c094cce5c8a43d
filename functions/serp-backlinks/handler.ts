import { SERP_BACKLINKS } from '@cm/contract';
import { enqueue, getBacklinkData, tool } from '@cm/runtime';
import { serpBacklinks } from '@cm/tools';

/** serp_backlinks: backlink data for untracked domains and links; the site's budget warnings go to their queue. */
export const handler = tool(SERP_BACKLINKS, serpBacklinks, { backlinkData: getBacklinkData, enqueue });
