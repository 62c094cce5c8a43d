import type { Writable } from 'node:stream';
import type { Context } from 'aws-lambda';
import type { ApiEvent } from '../http/request';
import type { McpStreamHandler } from './handler';

/*
 * Lambda's response streaming, as the Node.js runtime offers it: the `awslambda` global with
 * `streamifyResponse` and `HttpResponseStream.from` (status and headers before the body). It exists only
 * on Lambda; the local stack hands the same core the server's response instead.
 */

type StreamingHandler = (event: ApiEvent, stream: Writable, context: Context) => Promise<void>;

interface LambdaStreaming {
  streamifyResponse(handler: StreamingHandler): unknown;
  HttpResponseStream: {
    from(stream: Writable, metadata: { statusCode: number; headers: Record<string, string> }): Writable;
  };
}

function isLambdaStreaming(value: unknown): value is LambdaStreaming {
  if (typeof value !== 'object' || value === null) return false;
  const responseStream: unknown = Reflect.get(value, 'HttpResponseStream');
  return (
    typeof Reflect.get(value, 'streamifyResponse') === 'function' &&
    typeof responseStream === 'object' &&
    responseStream !== null &&
    typeof Reflect.get(responseStream, 'from') === 'function'
  );
}

/** The Lambda handler of a streaming core; off Lambda, one that says where it runs instead. */
export function streamifiedHandler(core: McpStreamHandler): unknown {
  const lambda: unknown = Reflect.get(globalThis, 'awslambda');
  if (!isLambdaStreaming(lambda))
    return () => {
      throw new Error('A response-streaming handler runs on Lambda only; the local stack calls its core');
    };
  return lambda.streamifyResponse((event, stream, context) =>
    core(event, context, (statusCode, headers) => lambda.HttpResponseStream.from(stream, { statusCode, headers })),
  );
}
