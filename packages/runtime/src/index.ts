export * from './config';
export * from './services';
export * from './http';
export * from './api';
export * from './queues';
export * from './worker';
export * from './observability';
export * from './tools';
export { selectKeywordData } from './providers';
