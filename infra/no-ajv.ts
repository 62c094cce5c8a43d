/**
 * Put in place of `ajv` and `ajv-formats` by esbuild (aliasesOf in ./bundling.ts) in the mcp bundle.
 * The MCP SDK's server imports ajv to check an elicitation's answer against its schema, which this
 * stateless endpoint never asks for (docs/api.md#mcp), and its server is given its own validator
 * (runtime's mcp/server.ts); bundled, ajv was a quarter of the function and of its cold start.
 */
const notBundled = (): never => {
  throw new Error('ajv is not in the mcp bundle (infra/no-ajv.ts): the MCP endpoint validates no elicitation');
};

/** @public imported by the SDK as ajv's default export */
export default class Ajv {
  constructor() {
    notBundled();
  }
}
