import fc from 'fast-check';
import { rawRequest, type RawReply } from './raw-http';

/*
 * Shared by the fuzz tests (test/e2e/fuzz.test.ts and the reliability suite): malformed pieces of a
 * request, a raw request sent exactly as generated, and fast-check arbitraries built from the JSON
 * Schema that zod generates for a route's body or query (z.toJSONSchema), so what is generated
 * follows the route table.
 */

/** `levels` arrays, one in the other. */
export const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

export const BAD_ESCAPES = ['%', '%%', '%zz', '%2', '%G0', '%E0%A4%A', '%C3', '%FF', '%ED%A0%80', 'a%', '%0', '%e2%82'];
/** Path segments that decode to what a router might misread: separators, dot segments, NUL, non-ASCII. */
export const ODD_SEGMENTS = [
  '%2F',
  '..',
  '%2e%2e',
  '.',
  '%00',
  '%C3%A9',
  '%F0%9F%98%80',
  'a%20b',
  '%25',
  '~',
  "'",
  '%3F',
  '%23',
  '__proto__',
  'constructor',
];
export const CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/octet-stream',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'image/png',
  'application/json; charset=latin1',
];
export const NON_OBJECTS = [
  '"text"',
  '42',
  '-0',
  'null',
  'true',
  '[]',
  '[1,2,3]',
  '""',
  '1e999',
  '[{"_type":"paragraph"}]',
];
export const ODD_NUMBERS = [
  '12345678901234567890',
  '9007199254740993',
  '-9007199254740993',
  '1e300',
  '-1e300',
  '1e999',
  '1e-200',
  '5e-324',
  '1.7976931348623157e308',
  '0.1e-129',
];

/** `text` percent-encoded as its UTF-8 bytes (a lone surrogate as U+FFFD), as encodeURIComponent would, without throwing. */
export const percentEncode = (text: string): string =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-_.!~*'()]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

export interface RawCall {
  method: string;
  path: string;
  contentType?: string;
  body?: Buffer;
  /** Header lines besides Host, Connection, Content-Type and Content-Length. */
  headers?: Record<string, string>;
}

/** One request over its own connection, sent exactly as given; with `key`, as X-API-Key. */
export function sendRaw(url: string, call: RawCall, key?: string): Promise<RawReply> {
  const headers = { ...(key ? { 'X-API-Key': key } : {}), ...(call.headers ?? {}) };
  const head = [
    `${call.method} ${call.path} HTTP/1.1`,
    'Host: 127.0.0.1',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
    ...(call.contentType ? [`Content-Type: ${call.contentType}`] : []),
    ...(call.body ? [`Content-Length: ${call.body.length}`] : []),
    '',
    '',
  ].join('\r\n');
  return rawRequest(url, head, call.body);
}

/* JSON Schema (as z.toJSONSchema writes it, draft 2020-12) to fast-check. */

export type JsonSchema = { [keyword: string]: any };

/** The longest string or array generated where the schema allows more: requests stay small. */
const SHORT = 24;

const json = fc.jsonValue({ maxDepth: 2 });

/** A string for `pattern`: matching when fast-check can generate from the regex, else a plain word or any text. */
function patterned(pattern: string, maxLength: number): fc.Arbitrary<string> {
  const regex = new RegExp(pattern, 'u');
  try {
    return fc.stringMatching(regex).filter((s) => s.length <= maxLength);
  } catch {
    // A regex fast-check cannot generate from (lookahead, Unicode properties): candidates, some of them matching.
    return fc.oneof(fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,30}$/), fc.string({ unit: 'grapheme', maxLength: SHORT }));
  }
}

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = Math.min((schema.maxLength as number | undefined) ?? Infinity, Math.max(minLength, SHORT));
  if (schema.pattern) return patterned(schema.pattern as string, (schema.maxLength as number | undefined) ?? Infinity);
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength, maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength }) },
  );
}

function numberOf(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min =
    (schema.minimum as number | undefined) ??
    (schema.exclusiveMinimum !== undefined ? (schema.exclusiveMinimum as number) + (integer ? 1 : 1e-6) : -1e6);
  const max =
    (schema.maximum as number | undefined) ??
    (schema.exclusiveMaximum !== undefined ? (schema.exclusiveMaximum as number) - (integer ? 1 : 1e-6) : 1e6);
  if (!integer) return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  const [lo, hi] = [Math.max(min, Number.MIN_SAFE_INTEGER), Math.min(max, Number.MAX_SAFE_INTEGER)];
  // Small values most of the time: ids, limits and counts that exist.
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: lo, max: Math.min(hi, lo + 20) }) },
    { weight: 1, arbitrary: fc.integer({ min: lo, max: hi }) },
  );
}

/** Values of `schema`, as far as its keywords say (zod refinements are not in it, so some are refused all the same). */
export function arbitraryOf(
  schema: JsonSchema | boolean,
  root: JsonSchema = schema as JsonSchema,
  depth = 0,
): fc.Arbitrary<unknown> {
  if (schema === true || depth > 6) return json;
  if (schema === false) return fc.constant(null);
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/$defs/', '');
    return arbitraryOf((root.$defs as Record<string, JsonSchema>)[name]!, root, depth + 1);
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((alternative) => arbitraryOf(alternative, root, depth + 1)));
  if (Array.isArray(schema.type))
    return fc.oneof(...(schema.type as string[]).map((type) => arbitraryOf({ ...schema, type }, root, depth)));
  switch (schema.type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return numberOf(schema, true);
    case 'number':
      return numberOf(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = (schema.minItems as number | undefined) ?? 0;
      const maxLength = Math.min((schema.maxItems as number | undefined) ?? Infinity, minLength + 4);
      return fc.array(arbitraryOf((schema.items as JsonSchema | undefined) ?? true, root, depth + 1), {
        minLength,
        maxLength,
      });
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      if (Object.keys(properties).length === 0) {
        const values =
          typeof schema.additionalProperties === 'object'
            ? arbitraryOf(schema.additionalProperties as JsonSchema, root, depth + 1)
            : json;
        return fc.dictionary(fc.string({ maxLength: 12 }), values, { maxKeys: 4 });
      }
      const record = Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, arbitraryOf(property, root, depth + 1)]),
      );
      return fc.record(record, { requiredKeys: (schema.required as string[] | undefined) ?? [] });
    }
    default:
      return json;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value that is wrong for most fields: another type, an odd number, a deep array, a huge or odd text. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  json,
  fc.constantFrom(
    null,
    -1,
    0,
    1.5,
    1e308,
    '',
    ' ',
    '\u0000',
    '\ud800',
    'x'.repeat(5000),
    [],
    {},
    [[[[[]]]]],
    { _type: 42 },
    '<script>',
    '%zz',
  ),
);

/** An invalid variant of a generated object: a field left out, of another value, or a field added. */
export function mutationOf(value: unknown): fc.Arbitrary<unknown> {
  if (!isObject(value)) return wrongValue;
  const keys = Object.keys(value);
  const without =
    keys.length > 0
      ? [fc.constantFrom(...keys).map((key) => Object.fromEntries(Object.entries(value).filter(([k]) => k !== key)))]
      : [];
  const replaced =
    keys.length > 0
      ? [fc.tuple(fc.constantFrom(...keys), wrongValue).map(([key, wrong]) => ({ ...value, [key]: wrong }))]
      : [];
  const added = fc
    .tuple(
      fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', ''), fc.string({ maxLength: 12 })),
      wrongValue,
    )
    .map(([key, extra]) => {
      const copy: Record<string, unknown> = { ...value };
      Object.defineProperty(copy, key, { value: extra, enumerable: true, configurable: true, writable: true });
      return copy;
    });
  return fc.oneof(...without, ...replaced, added);
}

/**
 * Bodies for `schema`: valid as far as the schema says, mutated, not an object, or not JSON. `settle`
 * adjusts each value before it is written (a test's own rules, such as never waiting).
 */
export function bodiesOf(
  schema: JsonSchema,
  settle: (value: unknown) => unknown = (value) => value,
): fc.Arbitrary<string> {
  const valid = arbitraryOf(schema).map(settle);
  return fc.oneof(
    { weight: 4, arbitrary: valid.map((v) => JSON.stringify(v)) },
    { weight: 4, arbitrary: valid.chain(mutationOf).map((v) => JSON.stringify(settle(v)) ?? 'null') },
    { weight: 1, arbitrary: fc.constantFrom(...NON_OBJECTS) },
    {
      weight: 1,
      arbitrary: valid.chain((v) =>
        fc.nat().map((n) => JSON.stringify(v).slice(0, 1 + (n % Math.max(1, JSON.stringify(v).length - 1)))),
      ),
    },
  );
}
