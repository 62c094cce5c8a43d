/*
 * A Lambda host for handler bundles, run by another Node (test/infra/node24.test.ts runs it on Node 24,
 * the functions' runtime). The parent sends `{id, bundle, functionName, timeoutMs, event}` over IPC; the
 * bundle is required once (as a Lambda container loads it at cold start) and its `handler` invoked with
 * the event and a Lambda context; the reply is `{id, result}` or `{id, error}`.
 */
const { randomUUID } = require('node:crypto');

function lambdaContext(functionName, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'node24',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}

process.on('message', ({ id, bundle, functionName, timeoutMs, event }) => {
  Promise.resolve()
    .then(() => require(bundle).handler(event, lambdaContext(functionName, timeoutMs)))
    .then(
      (result) => process.send({ id, result: result === undefined ? null : result }),
      (error) => process.send({ id, error: String((error && error.stack) || error) }),
    );
});

process.send({ ready: process.version });
