export * from './meter';
export * from './errors';
export * from './types';
export { resolveAll } from './resolve';
export {
  SandboxKeywordData,
  SandboxBacklinkData,
  SandboxResearch,
  SandboxSerpQueue,
  sandboxHasNoData,
  sandboxReferringDomains,
} from './sandbox';
export * from './dataforseo';
export * from './prices';
