import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

export interface OpenApiVerdict {
  valid: boolean;
  /** The validator's findings: schema errors, or the first `$ref` it could not resolve. */
  errors?: unknown;
}

// @seriousme/openapi-schema-validator checks a document against the official OpenAPI JSON Schema and
// resolves every `$ref` in it. It is an ES module that finds its schemas through import.meta.url, which
// jest's CommonJS module system cannot load, so it runs in a Node process of its own.
const VALIDATE = `
import { Validator } from '@seriousme/openapi-schema-validator';
let input = '';
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(JSON.stringify(await new Validator().validate(JSON.parse(input))));
`;

/** What a maintained OpenAPI 3.x validator says of `document`. */
export function validateOpenApi(document: unknown): OpenApiVerdict {
  const out = execFileSync(process.execPath, ['--input-type=module', '--eval', VALIDATE], {
    cwd: resolve(__dirname, '../..'),
    input: JSON.stringify(document),
    encoding: 'utf8',
  });
  return JSON.parse(out) as OpenApiVerdict;
}
