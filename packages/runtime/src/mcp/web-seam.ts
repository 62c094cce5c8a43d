import { ApiError } from '@cm/contract';
import type { ApiEvent, ApiResult } from '../http/request';

/* The Lambda event ⇄ web Request seam: the MCP SDK's transport speaks web Requests and Responses. */

/** The web `Request` of an API Gateway payload 2.0 event. */
export function toWebRequest(event: ApiEvent): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  // The transport reads only the path of this URL; a forwarded scheme other than http counts as https.
  const proto = event.headers['x-forwarded-proto'] === 'http' ? 'http' : 'https';
  const url = `${proto}://${event.requestContext.domainName}${event.rawPath}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`;
  if (!URL.canParse(url)) throw new ApiError('bad_request', 'The request names no valid host');
  const method = event.requestContext.http.method;
  const body =
    event.body === undefined || event.body === null || method === 'GET' || method === 'HEAD'
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64')
        : event.body;
  return new Request(url, { method, headers, body });
}

/** A web `Response`'s headers, as a Lambda result carries them. */
export function headersOf(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

/** The payload 2.0 result of a web `Response`. */
export async function fromWebResponse(response: Response): Promise<ApiResult> {
  return { statusCode: response.status, headers: headersOf(response), body: await response.text() };
}
