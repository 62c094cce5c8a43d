import type { FunctionName, WorkerName } from '@cm/contract';
import type { WorkerHandler } from './queue';
import type { ApiHandler } from './server';
import { handler as discovery } from '../../../functions/discovery/handler';
import { handler as notify } from '../../../functions/notify/handler';
import { handler as publish } from '../../../functions/publish/handler';
import { handler as questionParts } from '../../../functions/question-parts/handler';
import { handler as read } from '../../../functions/read/handler';
import { handler as relinkWorker } from '../../../functions/relink-worker/handler';
import { handler as visitor } from '../../../functions/visitor/handler';

/** The handler module of every function in the route table: the same modules the Lambdas bundle. */
export const API_HANDLERS: Record<FunctionName, ApiHandler> = {
  discovery,
  publish,
  read,
  'question-parts': questionParts,
  visitor,
  notify,
};

/** The worker of every queue: the same modules the worker Lambdas bundle. */
export const WORKER_HANDLERS: Record<WorkerName, WorkerHandler> = {
  relink: relinkWorker,
};
