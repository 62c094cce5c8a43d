import { isSearchTraffic } from '../replies';
import { searchTrafficReport } from '../reports/search-traffic';
import { startMcpApp } from './app';

/* The search traffic App: a search_traffic result, its figures against the window before, its lists and the refresh queue. */
startMcpApp({
  name: 'search_traffic',
  tool: 'search_traffic',
  is: isSearchTraffic,
  draw: (traffic) => searchTrafficReport(traffic),
});
