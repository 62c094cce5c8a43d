export * from './config';
export * from './services';
export * from './http';
export * from './queues';
export * from './worker';
