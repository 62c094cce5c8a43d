import { behindEdge } from './edge-secret';
import type { ApiEvent } from './http/request';

/**
 * The address a request came from. Behind CloudFront (an origin secret set) API Gateway's source is the
 * edge, and the viewer's address is the one CloudFront appended to X-Forwarded-For: what a client sent
 * in that header itself comes before it, and the edge's own address, when API Gateway adds it, after.
 * Without the edge the source is the client's, and X-Forwarded-For (anyone's to send) is not read.
 */
export function clientAddressOf(event: ApiEvent): string {
  const source = event.requestContext.http.sourceIp;
  if (!behindEdge()) return source;
  const hops = (event.headers['x-forwarded-for'] ?? '')
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean);
  if (hops.at(-1) === source) hops.pop();
  return hops.at(-1) ?? source;
}
