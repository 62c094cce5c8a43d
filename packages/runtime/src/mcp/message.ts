import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { isJsonObject } from '@cm/contract';
import { refuseDeepJson } from '../http/json-body';

/*
 * A POST's JSON-RPC message, read once for both protocol eras, and the JSON-RPC errors it is refused
 * with before any server sees it (answered as the SDK answers its own: HTTP 400, `id: null`):
 * - a body that is not JSON: -32700 Parse error, whatever its headers say (neither era can read it);
 * - a batch (an array of messages) on a revision that removed batching, 2025-06-18 or later:
 *   -32600 Invalid Request. 2025-03-26 still has batches, and a 2025 request that names no version
 *   is taken to speak it, as its spec says a server should; 2026-07-28 batches the SDK refuses itself.
 */

/** The revision whose changelog removed JSON-RPC batching. */
const BATCHING_REMOVED_IN = '2025-06-18';
/** What a 2025 server assumes of a request that names no protocol version (2025-06-18, transports). */
const UNNAMED_VERSION = '2025-03-26';

const jsonRpcError = (code: ProtocolErrorCode, message: string) =>
  Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status: 400 });

/** The revision a batch speaks: its MCP-Protocol-Version header, else the version its initialize asks for. */
function versionOf(request: Request, batch: unknown[]): string {
  const header = request.headers.get('mcp-protocol-version')?.trim();
  if (header) return header;
  const asked = batch
    .map((m) =>
      isJsonObject(m) && m.method === 'initialize' && isJsonObject(m.params) ? m.params.protocolVersion : null,
    )
    .find((version) => typeof version === 'string');
  return typeof asked === 'string' ? asked : UNNAMED_VERSION;
}

/** The POST's body, parsed (a message or a batch), or the JSON-RPC error that refuses it. */
export async function readMessage(request: Request): Promise<{ body: unknown } | { refusal: Response }> {
  const text = await request.clone().text();
  refuseDeepJson(text);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { refusal: jsonRpcError(ProtocolErrorCode.ParseError, 'Parse error: the body is not valid JSON') };
  }
  if (!Array.isArray(body)) return { body };
  // Revisions are dates: one named after batching was removed sorts after it.
  const version = versionOf(request, body);
  if (version < BATCHING_REMOVED_IN) return { body };
  return {
    refusal: jsonRpcError(
      ProtocolErrorCode.InvalidRequest,
      `Invalid Request: JSON-RPC batches were removed in protocol ${BATCHING_REMOVED_IN} and this request speaks ${version}: send each message in a POST of its own`,
    ),
  };
}
