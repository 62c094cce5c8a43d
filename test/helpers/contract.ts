import { ERROR_STATUS, ErrorBody, type ErrorCode, type Route } from '@cm/contract';
import { matchRoute } from '@cm/local';

/*
 * Every reply a test receives through the test stack is checked against what the route table declares
 * (and so what GET /openapi.json documents): the code and the document cannot drift apart unnoticed.
 */

/** application/json, or a type of it (the JWK set's application/jwk-set+json). */
export const isJsonType = (contentType: string | null | undefined): boolean =>
  /^application\/([\w.-]+\+)?json\b/.test(contentType ?? '');

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Fields `sent` has that the schema's output `parsed` dropped: a plain zod object strips what it does
 * not declare, so those are fields the document does not mention. A loose object or a record keeps them.
 */
function undeclared(sent: unknown, parsed: unknown, path: string): string[] {
  if (Array.isArray(sent) && Array.isArray(parsed))
    return sent.flatMap((item, i) => undeclared(item, parsed[i], `${path}[${i}]`));
  if (!isObject(sent) || !isObject(parsed)) return [];
  return Object.keys(sent).flatMap((key) => {
    const at = path ? `${path}.${key}` : key;
    return Object.hasOwn(parsed, key) ? undeclared(sent[key], parsed[key], at) : [`${at}: not declared`];
  });
}

function routeOf(method: string, path: string): Route | undefined {
  try {
    // The route the server serves: of the path as it reads it, dot segments resolved (`/a/%2e%2e/b` is `/b`).
    return matchRoute(method, new URL(path, 'http://local').pathname)?.route;
  } catch {
    return undefined; // a path the server refuses to decode: its reply is an error, checked as one
  }
}

/** How a reply differs from what its route declares for its status; empty when it is as declared. */
export function replyMismatches(
  method: string,
  path: string,
  status: number,
  contentType: string | null,
  body: unknown,
): string[] {
  const route = routeOf(method, path);
  const declared = route?.replies[status];
  const isJson = isJsonType(contentType);
  // Any error may come in the error shape (a visitor page's 404 does, to a client that asks for JSON).
  if (declared?.contentType && !(status >= 400 && isJson)) {
    return contentType?.startsWith(declared.contentType.split(';')[0]!)
      ? []
      : [`content-type ${contentType}, declared ${declared.contentType}`];
  }
  // The authorization server's errors are OAuth's (RFC 6749 §5.2), where its routes declare them; an
  // error declared in the service's own shape is checked as every other below.
  if (status >= 400 && isJson && declared?.schema && declared.schema !== ErrorBody) {
    const result = declared.schema.safeParse(body);
    return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  }
  if (status >= 400) {
    if (!isJson) return [`an error answered as ${contentType}, not in the JSON error shape`];
    const error = ErrorBody.safeParse(body);
    if (!error.success)
      return error.error.issues.map((issue) => `error shape: ${issue.path.join('.')}: ${issue.message}`);
    const { code } = error.data;
    if (error.data.error !== code) return [`error "${error.data.error}" and code "${code}" differ`];
    if (ERROR_STATUS[code as ErrorCode] !== status) return [`code ${code} is not a ${status} in the error table`];
    return [];
  }
  if (!route) return [`${status} from ${method} ${path}, which no route serves`];
  if (!declared) return [`${status} is not a declared reply of ${method} ${route.path}`];
  if (!declared.schema) return [];
  const result = declared.schema.safeParse(body);
  if (!result.success) return result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  return undeclared(body, result.data, '');
}

/** Throws, naming each mismatch, unless the reply is what its route declares. */
export function expectDeclaredReply(
  method: string,
  path: string,
  status: number,
  contentType: string | null,
  body: unknown,
): void {
  const mismatches = replyMismatches(method, path, status, contentType, body);
  if (mismatches.length > 0) {
    throw new Error(
      `${method} ${path} answered ${status} unlike its declared reply:\n  ${mismatches.join('\n  ')}\n${JSON.stringify(body)?.slice(0, 2000)}`,
    );
  }
}
