/**
 * Put in place of `ajv` and `ajv-formats` by esbuild (aliasesOf in ./bundling.ts) in the MCP bundles.
 * The MCP SDK's server imports ajv to check an elicitation's answer against its schema in
 * `elicitInput`, which this server does not use: its approval questions (runtime's mcp/approval.ts) are
 * answered in a POST of their own and read there, and its server is given its own validator
 * (runtime's mcp/server.ts); bundled, ajv was a quarter of the function and of its cold start.
 */
const notBundled = (): never => {
  throw new Error(
    'ajv is not in the mcp bundle (infra/no-ajv.ts): the MCP server validates no elicitation answer with it',
  );
};

/** @public imported by the SDK as ajv's default export */
export default class Ajv {
  constructor() {
    notBundled();
  }
}
