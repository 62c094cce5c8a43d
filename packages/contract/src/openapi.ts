import * as z from 'zod/mini';
import { Block, KNOWN_BLOCKS } from './blocks';
import { isJsonObject } from './common';
import { ERROR_STATUS } from './errors';
import { ROUTES, type Reply, type Route } from './routes';
import { MCP_SCOPES, OAUTH_ENDPOINTS, OAUTH_SCOPES, scopeOfRoute } from './oauth';
import { MCP_OAUTH_PATH } from './route-table';

const REF_PREFIX = '#/components/schemas/';

type JsonSchema = Record<string, unknown>;

const DEFS_PREFIX = '#/$defs/';

/**
 * A schema converted on its own carries the registered schemas it uses (those with an `id`) in its own
 * `$defs`, referred to from its root; in the document those are components, so the refs point there.
 */
const jsonSchemaOf = (schema: z.ZodMiniType): JsonSchema => {
  const { $schema: _schema, $defs: _defs, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  const copy: unknown = JSON.parse(JSON.stringify(rest), (key, value: unknown) =>
    key === '$ref' && typeof value === 'string' && value.startsWith(DEFS_PREFIX)
      ? `${REF_PREFIX}${value.slice(DEFS_PREFIX.length)}`
      : value,
  );
  // A copy of an object is one; the check only tells the compiler so.
  if (!isJsonObject(copy)) throw new Error('a JSON Schema is an object');
  return copy;
};

/** A block is validated by its `_type`; the document lists the known shapes, and any other type. */
const describeBlocks: NonNullable<Parameters<typeof z.toJSONSchema>[1]>['override'] = ({ zodSchema, jsonSchema }) => {
  if (zodSchema !== Block) return;
  jsonSchema.anyOf = [
    ...Object.values(KNOWN_BLOCKS).map(jsonSchemaOf),
    {
      type: 'object',
      required: ['_type'],
      properties: { _type: { type: 'string' } },
      description: 'Any other type or shape: stored as sent',
    },
  ];
};

function schemaOf(schema: z.ZodMiniType): JsonSchema {
  const id = z.globalRegistry.get(schema)?.id;
  return id ? { $ref: `${REF_PREFIX}${id}` } : jsonSchemaOf(schema);
}

const ERROR_CONTENT = { 'application/json': { schema: { $ref: `${REF_PREFIX}Error` } } };

function content(reply: Reply, status: number): JsonSchema | undefined {
  // A 304 has no body (RFC 9110 §15.4.5).
  if (status === 304) return undefined;
  // An error a route answers in another type (a visitor page's 404) comes in the error shape to a client that asks for JSON.
  if (reply.contentType)
    return { [reply.contentType]: { schema: { type: 'string' } }, ...(status >= 400 ? ERROR_CONTENT : {}) };
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
    const { properties } = schemaOf(route.query);
    for (const [name, schema] of Object.entries(isJsonObject(properties) ? properties : {})) {
      parameters.push({ name, in: 'query', required: false, schema });
    }
  }
  const responses: JsonSchema = {};
  for (const [status, reply] of Object.entries(route.replies)) {
    const body = content(reply, Number(status));
    responses[status] = { description: reply.description, ...(body ? { content: body } : {}) };
  }
  responses.default = { description: 'Error', content: ERROR_CONTENT };
  return {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    security: securityOf(route),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.body) } } } }
      : {}),
    responses,
  };
}

/** Who may call a route: the API key, and on the routes that take one an OAuth token with the route's scope. */
function securityOf(route: Route): JsonSchema[] {
  if (!route.auth) return [];
  const scopes = route.path === MCP_OAUTH_PATH ? [...MCP_SCOPES] : [scopeOfRoute(route)].filter((s) => s !== null);
  return [{ apiKey: [] }, ...(scopes.length ? [{ oauth2: scopes }] : [])];
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
  });
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    // zod names each component with an `$id` that is a fragment, which JSON Schema 2020-12 forbids; its key names it.
    delete schema.$id;
  }
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
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        oauth2: {
          type: 'oauth2',
          description:
            'OAuth 2.1, for agents (docs/api.md#oauth): the authorization code flow with PKCE (S256), a resource indicator (RFC 8707) and the consent page, where the site owner signs in with the API key',
          flows: {
            authorizationCode: {
              // Relative: resolved against the document's server, the deployment's base URL.
              authorizationUrl: OAUTH_ENDPOINTS.authorization,
              tokenUrl: OAUTH_ENDPOINTS.token,
              refreshUrl: OAUTH_ENDPOINTS.token,
              scopes: OAUTH_SCOPES,
            },
          },
        },
      },
      schemas,
    },
    paths,
  };
}
