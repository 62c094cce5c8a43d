export * from './common';
export * from './errors';
export * from './blocks';
export * from './pages';
export * from './notify';
export * from './routes';
export * from './openapi';
