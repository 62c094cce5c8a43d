export * from './context';
export * from './publish';
export * from './notify';
export * from './relink';
export * from './pages';
export * from './find-pages';
export * from './visitor';
