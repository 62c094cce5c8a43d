export * from './context';
export * from './db';
export * from './keywords';
export * from './serp';
export * from './research';
export * from './competitors';
export * from './backlinks';
export * from './budget';
