/* research (web, reddit, url and keywords modes), its jobs and their leases, the sweep, analyze's research and recall. */

export { newJobId, jobView } from './jobs';
export { sweepResearch } from './sweep';
export { awaitJob } from './waiting';
export { research } from './tool';
export { runResearchJob } from './worker';
export { planKeywordResearch, researchKeywords } from './analyze';
export { recall } from './recall';
