/**
 * Put in place of `@smithy/core/event-streams` by esbuild (aliasesOf in ./bundling.ts) in the bundles
 * whose clients (DynamoDB, SQS, Secrets Manager) have no streaming operation: their protocol code
 * loads it only to serialize an event stream, so bundled it was code that no request ran. Should
 * one ever be asked to stream, it fails at once and says why.
 */
const notBundled = (): never => {
  throw new Error(
    '@smithy/core/event-streams is not in the Lambda bundles (infra/lambda-event-streams.ts): no operation they call streams events',
  );
};

/** @public imported by the SDK under the name it replaces, not by this repo's code */
export class EventStreamSerde {
  constructor() {
    notBundled();
  }
}
/** @public as EventStreamSerde */
export const eventStreamSerdeProvider = notBundled;
