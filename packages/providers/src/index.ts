export * from './types';
export { SandboxKeywordData, sandboxHasNoData } from './sandbox';
export * from './dataforseo';
