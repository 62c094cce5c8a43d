/*
 * A Lambda host for handler bundles, run by another Node (test/infra/node24.test.ts bundles it with
 * esbuild and runs it on Node 24, the functions' runtime). The parent sends
 * `{id, bundle, functionName, timeoutMs, event}` over IPC; the bundle is required once (as a Lambda
 * container loads it at cold start) and its `handler` invoked with the event and the same Lambda
 * context the local stack gives; the reply is `{id, result}` or `{id, error}`.
 */
import { lambdaContext } from '../../packages/local/src/context';

interface Invocation {
  id: number;
  bundle: string;
  functionName: string;
  timeoutMs: number;
  event: unknown;
}

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

process.on('message', ({ id, bundle, functionName, timeoutMs, event }: Invocation) => {
  Promise.resolve()
    .then(() => (require(bundle) as { handler: Handler }).handler(event, lambdaContext(functionName, timeoutMs)))
    .then(
      (result) => process.send!({ id, result: result === undefined ? null : result }),
      (error: unknown) => process.send!({ id, error: String((error as Error | undefined)?.stack ?? error) }),
    );
});

process.send!({ ready: process.version });
