export * from './config';
export * from './services';
export * from './http';
