import { functionEnvName, type FunctionName } from '@cm/contract';
import { getConfig } from '../config';
import type { ApiEvent, ApiResult } from '../http';
import { decodeRouteReply } from './replies.decoder';

/* Invoking another function of the route table: Lambda Invoke on AWS, in-process in the local stack. */

/** Runs a route function with an API Gateway payload 2.0 event: Lambda Invoke on AWS, in-process in the local stack. */
export type FunctionInvoker = (fn: FunctionName, event: ApiEvent) => Promise<ApiResult>;

/** Lambda Invoke (RequestResponse) of the function named in `FUNCTION_<NAME>`. */
const lambdaInvoker: FunctionInvoker = async (fn, event) => {
  const variable = functionEnvName(fn);
  const name = getConfig().functionNames[fn];
  if (!name) throw new Error(`${variable} is not set: the mcp function is not wired to invoke ${fn}`);
  // The Lambda client loads with the first tool call, not at cold start: initialize and tools/list need none.
  const { invokeFunction } = await import('./lambda-invoke');
  const { text, functionError } = await invokeFunction(name, JSON.stringify(event));
  if (functionError) throw new Error(`${fn} failed (${functionError}): ${text.slice(0, 500)}`);
  return decodeRouteReply(fn, text);
};

let invoker: FunctionInvoker | undefined;

/** The local stack runs the functions in-process; undefined puts Lambda Invoke back. */
export function setFunctionInvoker(next: FunctionInvoker | undefined): void {
  invoker = next;
}

export const invoke: FunctionInvoker = (fn, event) => (invoker ?? lambdaInvoker)(fn, event);
