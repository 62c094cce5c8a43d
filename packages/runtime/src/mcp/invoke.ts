import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { functionEnvName } from '@cm/contract';
import { getConfig } from '../config';
import { functionInvoker, type FunctionInvoker } from './invoker';
import { decodeRouteReply } from './replies.decoder';

/* Invoking another function of the route table: Lambda Invoke on AWS, in-process in the local stack. */

let lambda: LambdaClient | undefined;

/** Lambda Invoke (RequestResponse) of the function named in `FUNCTION_<NAME>`. */
const lambdaInvoker: FunctionInvoker = async (fn, event) => {
  const variable = functionEnvName(fn);
  const name = getConfig().functionNames[fn];
  if (!name) throw new Error(`${variable} is not set: the mcp function is not wired to invoke ${fn}`);
  lambda ??= new LambdaClient({ region: getConfig().region });
  const out = await lambda.send(new InvokeCommand({ FunctionName: name, Payload: Buffer.from(JSON.stringify(event)) }));
  const text = out.Payload ? Buffer.from(out.Payload).toString('utf8') : '';
  if (out.FunctionError) throw new Error(`${fn} failed (${out.FunctionError}): ${text.slice(0, 500)}`);
  return decodeRouteReply(fn, text);
};

export const invoke: FunctionInvoker = (fn, event) => (functionInvoker() ?? lambdaInvoker)(fn, event);
