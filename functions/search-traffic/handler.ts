import { SEARCH_TRAFFIC } from '@cm/contract';
import { tool } from '@cm/runtime';
import { searchTraffic } from '@cm/tools';

/** search_traffic: Search Console's figures of the site, a page or a topic, and the refresh queue. */
export const handler = tool(SEARCH_TRAFFIC, searchTraffic);
