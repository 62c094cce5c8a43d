/**
 * Put in place of `node:stream/web` by esbuild (aliasesOf in ./bundling.ts) in every bundle. Its one
 * importer there is middy's core, for an `instanceof ReadableStream` on the path of a streamed
 * response, which no function takes (mcp-stream writes its stream itself). Required at module load,
 * Node's web streams are a dozen internal modules, 2-9 ms of every cold start; here they load with
 * the first check that asks.
 */
const load = () => process.getBuiltinModule('node:stream/web');

/** @public imported by middy under the name it replaces, not by this repo's code */
export const ReadableStream = {
  [Symbol.hasInstance]: (value: unknown) => value instanceof load().ReadableStream,
};
