import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { getConfig } from '../config';

/* Lambda's Invoke, in a module of its own: the mcp function loads it with its first tool call (named imports, so the bundle keeps only Invoke). */

let lambda: LambdaClient | undefined;

/** Invokes `functionName` (RequestResponse) with `payload`; its payload text and function error, if any. */
export async function invokeFunction(
  functionName: string,
  payload: string,
): Promise<{ text: string; functionError?: string }> {
  lambda ??= new LambdaClient({ region: getConfig().region });
  const out = await lambda.send(new InvokeCommand({ FunctionName: functionName, Payload: Buffer.from(payload) }));
  return { text: out.Payload ? Buffer.from(out.Payload).toString('utf8') : '', functionError: out.FunctionError };
}
