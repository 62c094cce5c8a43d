import * as z from 'zod';
import { Block, KNOWN_BLOCKS } from './blocks';
import { ERROR_STATUS } from './errors';
import { ROUTES, type Reply, type Route } from './routes';

const REF_PREFIX = '#/components/schemas/';

type JsonSchema = Record<string, unknown>;

const jsonSchemaOf = (schema: z.ZodType): JsonSchema => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

/** A block is validated by its `_type`; the document lists the known shapes, and any other type. */
const describeBlocks: NonNullable<Parameters<typeof z.toJSONSchema>[1]>['override'] = ({ zodSchema, jsonSchema }) => {
  if (zodSchema !== Block) return;
  jsonSchema.anyOf = [
    ...Object.values(KNOWN_BLOCKS).map(jsonSchemaOf),
    { type: 'object', required: ['_type'], properties: { _type: { type: 'string' } }, description: 'Any other type: stored, not rendered' },
  ];
};

function schemaOf(schema: z.ZodType): JsonSchema {
  const id = z.globalRegistry.get(schema)?.id;
  return id ? { $ref: `${REF_PREFIX}${id}` } : jsonSchemaOf(schema);
}

function content(reply: Reply): JsonSchema | undefined {
  if (reply.contentType) return { [reply.contentType]: { schema: { type: 'string' } } };
  if (!reply.schema) return { 'application/json': { schema: { type: 'object' } } };
  return { 'application/json': { schema: schemaOf(reply.schema) } };
}

function operation(route: Route): JsonSchema {
  const parameters: JsonSchema[] = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (route.query) {
    const query = schemaOf(route.query) as { properties?: Record<string, JsonSchema> };
    for (const [name, schema] of Object.entries(query.properties ?? {})) {
      parameters.push({ name, in: 'query', required: false, schema });
    }
  }
  const responses: JsonSchema = {};
  for (const [status, reply] of Object.entries(route.replies)) {
    responses[status] = { description: reply.description, content: content(reply) };
  }
  responses.default = { description: 'Error', content: { 'application/json': { schema: { $ref: `${REF_PREFIX}Error` } } } };
  return {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    ...(route.auth ? { security: [{ apiKey: [] }] } : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.body) } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, generated from the zod schemas that validate the requests. */
export function buildOpenApi(serverUrl?: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of ROUTES) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    io: 'input',
    unrepresentable: 'any',
    override: describeBlocks,
    uri: (id) => `${REF_PREFIX}${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  for (const schema of Object.values(schemas)) delete schema.$schema;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Content research and publishing API',
      version: '1.0.0',
      description: `Error codes: ${Object.entries(ERROR_STATUS)
        .map(([code, status]) => `${status} ${code}`)
        .join(', ')}.`,
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas,
    },
    paths,
  };
}
