/*
 * A Lambda host for handler bundles, run by another Node (test/infra/node24.test.ts bundles it with
 * esbuild and runs it on Node 24, the functions' runtime). The parent sends
 * `{id, bundle, functionName, timeoutMs, event}` over IPC; the bundle is required once (as a Lambda
 * container loads it at cold start) and its `handler` invoked with the event and the same Lambda
 * context the local stack gives; the reply is `{id, result}` or `{id, error}`. A response-streaming
 * handler gets the `awslambda` global the Node.js runtime gives it, and its stream is answered as
 * `{statusCode, headers, body}` once it ends, as a function URL's client reads it.
 */
import { Writable } from 'node:stream';
import { lambdaContext } from '../../packages/local/src/context';

interface Invocation {
  id: number;
  bundle: string;
  functionName: string;
  timeoutMs: number;
  event: unknown;
}

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
type StreamingHandler = (event: unknown, stream: Writable, context: unknown) => Promise<void>;

const STREAMING = Symbol('streaming');
interface Streamed extends Writable {
  metadata?: { statusCode: number; headers: Record<string, string> };
}
(globalThis as Record<string, unknown>).awslambda = {
  streamifyResponse: (handler: StreamingHandler) => Object.assign(handler, { [STREAMING]: true }),
  HttpResponseStream: {
    from: (stream: Streamed, metadata: Streamed['metadata']) => Object.assign(stream, { metadata }),
  },
};

/** Runs a streaming handler into a stream that keeps what it is given: the whole reply, once it ends. */
async function streamed(handler: StreamingHandler, event: unknown, context: unknown) {
  const chunks: Buffer[] = [];
  const stream: Streamed = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  const ended = new Promise((resolve) => stream.on('finish', resolve));
  await handler(event, stream, context);
  await ended;
  return { ...stream.metadata, body: Buffer.concat(chunks).toString('utf8') };
}

process.on('message', ({ id, bundle, functionName, timeoutMs, event }: Invocation) => {
  Promise.resolve()
    .then(() => {
      const { handler } = require(bundle) as { handler: Handler & { [STREAMING]?: true } };
      const context = lambdaContext(functionName, timeoutMs);
      return handler[STREAMING] ? streamed(handler as StreamingHandler, event, context) : handler(event, context);
    })
    .then(
      (result) => process.send!({ id, result: result === undefined ? null : result }),
      (error: unknown) => process.send!({ id, error: String((error as Error | undefined)?.stack ?? error) }),
    );
});

process.send!({ ready: process.version });
