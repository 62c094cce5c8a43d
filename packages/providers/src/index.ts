export * from './types';
export { SandboxKeywordData, SandboxResearch, SANDBOX_RESEARCH_MS, sandboxHasNoData } from './sandbox';
export * from './dataforseo';
