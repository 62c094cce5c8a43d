import { resultStyles } from '../colors';
import { isLandscape } from '../replies';
import { landscapeReport } from '../reports/landscape';
import { startMcpApp } from './app';

/* The keyword landscape App: a serp_landscape result, the competitors in their stored colours. */
startMcpApp({
  name: 'keyword_landscape',
  tool: 'serp_landscape',
  is: isLandscape,
  draw: (landscape) => landscapeReport(landscape, resultStyles(landscape.sov.domains)),
});
