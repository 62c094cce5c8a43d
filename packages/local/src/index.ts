export { startLocalStack } from './stack';
export type { LocalStack } from './stack';
export { dynamoEngine, ensureTable, startDynamo } from './dynamo';
export type { EmbeddedDynamo } from './dynamo';
export { ROUTE_TIMEOUT_MS, listen, matchRoute } from './server';
export { InProcessQueue, RECURSIVE_LOOP_LIMIT, RECURSIVE_LOOP_STOPPED } from './queue';
export { lambdaContext, scheduledEvent } from './context';
export { runSites } from './sites';
export { runSmoke } from './smoke';
