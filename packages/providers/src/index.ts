export * from './types';
export { SandboxKeywordData, SandboxBacklinkData, SandboxResearch, SANDBOX_RESEARCH_MS, sandboxHasNoData } from './sandbox';
export * from './dataforseo';
