export * from './stack';
export * from './dynamo';
export * from './server';
export * from './queue';
export * from './context';
export { runSites } from './sites';
export { runSmoke } from './smoke';
