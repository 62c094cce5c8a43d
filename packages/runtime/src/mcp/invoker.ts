import type { FunctionName } from '@cm/contract';
import type { ApiEvent, ApiResult } from '../http/request';

/* Which invoker runs the route functions: set by the local stack (in-process); unset on AWS (Lambda Invoke). */

/** Runs a route function with an API Gateway payload 2.0 event: Lambda Invoke on AWS, in-process in the local stack. */
export type FunctionInvoker = (fn: FunctionName, event: ApiEvent) => Promise<ApiResult>;

let invoker: FunctionInvoker | undefined;

/** The local stack runs the functions in-process; undefined puts Lambda Invoke back. */
export function setFunctionInvoker(next: FunctionInvoker | undefined): void {
  invoker = next;
}

export const functionInvoker = (): FunctionInvoker | undefined => invoker;
