import type { FunctionName } from '@cm/contract';
import type { ApiHandler } from './server';
import { handler as discovery } from '../../../functions/discovery/handler';
import { handler as publish } from '../../../functions/publish/handler';
import { handler as questionParts } from '../../../functions/question-parts/handler';
import { handler as read } from '../../../functions/read/handler';
import { handler as visitor } from '../../../functions/visitor/handler';

/** The handler module of every function in the route table: the same modules the Lambdas bundle. */
export const API_HANDLERS: Record<FunctionName, ApiHandler> = {
  discovery,
  publish,
  read,
  'question-parts': questionParts,
  visitor,
};
