import * as z from 'zod/mini';
import {
  ErrorBody,
  ROUTES,
  routeKey,
  ToolEstimate,
  TOOLS,
  type Route,
  type RouteDeclarations,
  type ToolResult,
} from '@cm/contract';

/*
 * A typed client of the test stack, as Hono's `hc` is typed from its app: a route by its key and a tool
 * by its name answer the types their declarations give (the route's reply schema, the tool's result), so
 * a test reads a reply without `any`, `!` or a cast. Every reply is still checked against what its route
 * declares (TestStack.call), and a success against the schema its type comes from here.
 */

/** A reply of the test stack: its status, headers, body (JSON parsed) and text. */
export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** What the client sends through: the test stack (./local.ts), whose call checks each reply against its route. */
interface Caller {
  key: string;
  call<T>(
    method: string,
    path: string,
    body?: unknown,
    options?: { key?: string | null; headers?: Record<string, string> },
  ): Promise<Reply<T>>;
}

type Declared = RouteDeclarations;
type Query = Record<string, string | number | boolean | undefined>;
type SuccessStatus = 200 | 201;
/** The schemas of a route's JSON successes, as its declaration in the contract's ROUTES types them. */
type SuccessSchema<K extends keyof Declared> = {
  [S in SuccessStatus & keyof Declared[K]['replies']]: Declared[K]['replies'][S] extends { schema: infer T }
    ? T
    : never;
}[SuccessStatus & keyof Declared[K]['replies']];

/** A route with a JSON success: the routes the client calls (the others answer pages, files and redirects). */
export type RouteKey = {
  [K in keyof Declared]: [SuccessSchema<K>] extends [never] ? never : K;
}[keyof Declared];

/** `GET /articles?slug=…` answers the article; without a slug, a page of the list (as GET /questions). */
type ListOrRecord<Q, R> = Q extends { slug: string } ? Exclude<R, { items: unknown }> : Extract<R, { items: unknown }>;
type Success<K extends RouteKey> = z.input<Extract<SuccessSchema<K>, z.ZodMiniType>>;
export type RouteReply<K extends RouteKey, Q = Query> = K extends 'GET /articles' | 'GET /questions'
  ? ListOrRecord<Q, Success<K>>
  : Success<K>;

type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;
type PathOf<K extends string> = K extends `${string} ${infer Path}` ? Path : never;
type Params<K extends RouteKey> = Record<ParamNames<PathOf<K>>, string | number>;
/** The body its route declares; a route that declares none (a form) takes any. */
type Body<K extends RouteKey> = Declared[K] extends { body: infer B extends z.ZodMiniType } ? z.input<B> : unknown;

interface Sent<Q> {
  query?: Q;
  /** Another key, or null for none; the client's own by default. */
  key?: string | null;
  headers?: Record<string, string>;
}
export type RouteRequest<K extends RouteKey, Q> = Sent<Q> &
  ([ParamNames<PathOf<K>>] extends [never] ? { params?: never } : { params: Params<K> }) &
  (K extends `${'POST' | 'PUT'} ${string}` ? { body: Body<K> } : { body?: never });

export type ToolName = keyof typeof TOOLS;
/** A tool's input as a client sends it. */
export type ToolArgs<N extends ToolName> = z.input<(typeof TOOLS)[N]['input']>;
/** A tool's answer to `input`: the price for `estimate: true`, else its result. */
export type ToolAnswer<N extends ToolName, I> = I extends { estimate: true }
  ? z.input<typeof ToolEstimate>
  : Exclude<ToolResult<N>, { estimate: true }>;

/** The request a route takes: its path parameters when it has any, a body when it is a POST or PUT. */
type RouteArgs<K extends RouteKey, Q> = [ParamNames<PathOf<K>>] extends [never]
  ? K extends `${'POST' | 'PUT'} ${string}`
    ? [RouteRequest<K, Q>]
    : [RouteRequest<K, Q>?]
  : [RouteRequest<K, Q>];
type LooseRequest = Sent<Query> & { params?: Record<string, string | number>; body?: unknown };

function pathOf(key: string, params: Record<string, string | number> = {}, query: Query = {}): string {
  const path = key
    .slice(key.indexOf(' ') + 1)
    .replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  return search.size > 0 ? `${path}?${search.toString()}` : path;
}

const DECLARED = new Map<string, Route>(ROUTES.map((r) => [routeKey(r), r]));

/** The stack's client with the demo site's key, or `key`'s. */
export function apiClient(t: Caller, key: string | null = t.key) {
  const send = (method: string, path: string, body: unknown, sent: Sent<Query>) =>
    t.call<unknown>(method, path, body, { key: sent.key === undefined ? key : sent.key, headers: sent.headers });

  /** The reply typed by `schema`, which its body must match. */
  const typed = <T>(reply: Reply<unknown>, what: string, schema: z.ZodMiniType): Reply<T> => {
    const parsed = z.safeParse(schema, reply.body);
    if (!parsed.success) throw new Error(`${what} answered unlike its type: ${z.prettifyError(parsed.error)}`);
    // The body is the reply as sent (the schema's input side), which the parse just checked.
    return { ...reply, body: reply.body as T };
  };
  /** A success, typed by `schema`; anything else throws with the reply. */
  const succeeded = <T>(reply: Reply<unknown>, what: string, schema: z.ZodMiniType): Reply<T> => {
    if (reply.status >= 300) throw new Error(`${what} answered ${reply.status}: ${reply.text.slice(0, 2000)}`);
    return typed<T>(reply, what, schema);
  };
  /** An error in the service's one shape, its body as sent (nothing of it left out); a success throws. */
  const refused = (reply: Reply<unknown>, what: string): Reply<z.input<typeof ErrorBody>> => {
    if (reply.status < 400)
      throw new Error(`${what} answered ${reply.status}, not an error: ${reply.text.slice(0, 2000)}`);
    return typed<z.input<typeof ErrorBody>>(reply, what, ErrorBody);
  };

  /** A route by its key (`'GET /articles/{id}'`), with its path parameters, query and body. */
  function route<K extends RouteKey, const Q extends Query = Record<never, never>>(
    key: K,
    ...request: RouteArgs<K, Q>
  ): Promise<Reply<RouteReply<K, Q>>>;
  async function route(key: RouteKey, request: LooseRequest = {}): Promise<Reply<unknown>> {
    const path = pathOf(key, request.params, request.query);
    const reply = await send(key.slice(0, key.indexOf(' ')), path, request.body, request);
    const what = `${key} (${path})`;
    const schema = DECLARED.get(key)?.replies[reply.status]?.schema;
    if (reply.status < 300 && !schema) throw new Error(`${what} answered ${reply.status}, which declares no JSON body`);
    return succeeded(reply, what, schema ?? ErrorBody);
  }

  return {
    route,

    /** A route that must refuse: its error, whatever the request (a test of refusals sends what the types forbid). */
    async routeError(route: RouteKey | `${'GET' | 'POST' | 'PUT' | 'DELETE'} /${string}`, request: LooseRequest = {}) {
      const path = pathOf(route, request.params, request.query);
      return refused(await send(route.slice(0, route.indexOf(' ')), path, request.body, request), `${route} (${path})`);
    },

    /** A research tool's result (or its price, with `estimate: true`). */
    async tool<N extends ToolName, const I extends ToolArgs<N>>(
      name: N,
      input: I,
      sent: Sent<never> = {},
    ): Promise<Reply<ToolAnswer<N, I>>> {
      const reply = await send('POST', `/v1/tools/${name}`, input, sent);
      const priced = typeof input === 'object' && input !== null && 'estimate' in input && input.estimate === true;
      return succeeded(reply, name, priced ? ToolEstimate : TOOLS[name].result);
    },

    /** A tool call that must be refused, with any input. */
    async toolError(name: ToolName, input: unknown, sent: Sent<never> = {}) {
      return refused(await send('POST', `/v1/tools/${name}`, input, sent), name);
    },

    /** A tool call a race or a limit may refuse: its status, and its error when refused (each checked as above). */
    async toolOutcome<N extends ToolName>(name: N, input: ToolArgs<N>, sent: Sent<never> = {}) {
      const reply = await send('POST', `/v1/tools/${name}`, input, sent);
      if (reply.status >= 400) return { status: reply.status, error: refused(reply, name).body };
      return { status: succeeded(reply, name, TOOLS[name].result).status, error: null };
    },
  };
}

/** `value`, which the test expects to be there: throws naming `what` when it is not (instead of a `!`). */
export function given<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`expected ${what}, got ${String(value)}`);
  return value;
}

/** The members of union `T` whose `key` may be `V` (a required key: a member without it is not one). */
type Variant<T, K extends PropertyKey, V> = T extends unknown
  ? T extends { [P in K]: infer F }
    ? V extends F
      ? T & { [P in K]: V }
      : never
    : never
  : never;

/** `value`, a reply of several shapes, as its shape whose `key` is `expected`: throws naming what it was instead. */
export function variant<T, K extends PropertyKey, const V>(value: T, key: K, expected: V): Variant<T, K, V> {
  const is = (v: T): v is Variant<T, K, V> => typeof v === 'object' && v !== null && Reflect.get(v, key) === expected;
  if (!is(value))
    throw new Error(`expected ${String(key)} ${String(expected)}, got ${JSON.stringify(value)?.slice(0, 2000)}`);
  return value;
}
