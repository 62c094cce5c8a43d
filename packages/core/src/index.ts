export * from './ids';
export * from './markup';
export * from './urls';
export * from './pages';
export * from './render';
export * from './notify';
export * from './relink';
