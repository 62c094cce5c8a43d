import { getBacklinkData, tool } from '@cm/runtime';
import { serpBacklinks } from '@cm/tools';

/** serp_backlinks: backlink data for untracked domains and links. */
export const handler = tool('serp_backlinks', serpBacklinks, { backlinkData: getBacklinkData });
