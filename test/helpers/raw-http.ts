import { connect } from 'node:net';
import { isJsonType } from './contract';

/*
 * HTTP/1.1 by hand over one new connection, for requests fetch will not send as they are (malformed
 * heads, bodies the server should stop reading) and to see how much of a body the server took.
 */

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  /** The body, parsed when the reply is JSON. */
  body: unknown;
  /** Body bytes the connection took before the server answered and closed it. */
  sentBytes: number;
}

export interface RawBody {
  /** How many bytes of body to send, written only as fast as the server reads them. */
  bytes: number;
  /** Send them as chunked transfer coding (no Content-Length) instead of as they are. */
  chunked?: boolean;
  /** Keep sending after the server's answer and its end of the connection, as a client that reads no reply would, until the connection is cut. */
  deaf?: boolean;
}

/** The body of a chunked reply; chunk sizes count bytes, so it is read as bytes, not as decoded text. */
function dechunk(bytes: Buffer): Buffer {
  const out: Buffer[] = [];
  for (let at = 0; ;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) return Buffer.concat(out);
    out.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

function parse(response: Buffer): Omit<RawReply, 'sentBytes'> {
  const end = response.indexOf('\r\n\r\n');
  const text = response.subarray(0, Math.max(end, 0)).toString('utf8');
  if (end < 0) throw new Error(`no complete reply: ${JSON.stringify(response.toString('utf8').slice(0, 200))}`);
  const [statusLine, ...lines] = text.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  const rest = response.subarray(end + 4);
  const raw = (headers['transfer-encoding'] === 'chunked' ? dechunk(rest) : rest).toString('utf8');
  const body: unknown = isJsonType(headers['content-type']) ? JSON.parse(raw) : raw;
  return { status: Number(statusLine!.split(' ')[1]), headers, body };
}

/**
 * Sends `head` as it is (request line and headers, up to and including the blank line), then `body`
 * as filler bytes, or `head` and `body` as they are when `body` is a Buffer. Resolves once the server
 * closed the connection: send `Connection: close` on requests the server would otherwise keep open.
 */
export function rawRequest(baseUrl: string, head: string, body?: RawBody | Buffer): Promise<RawReply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect({
      port: Number(port),
      host: hostname,
      allowHalfOpen: !Buffer.isBuffer(body) && body?.deaf === true,
    });
    const received: Buffer[] = [];
    let sentBytes = 0;
    let open = true;
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    // The server may stop reading and close while the body is still going out: EPIPE or ECONNRESET on our side.
    socket.on('error', () => {
      open = false;
    });
    socket.on('close', () => {
      open = false;
      // A reply that does not parse rejects (the executor's throw).
      resolve(new Promise<RawReply>((parsed) => parsed({ ...parse(Buffer.concat(received)), sentBytes })));
    });
    socket.write(head);
    if (body === undefined) return;
    if (Buffer.isBuffer(body)) {
      socket.write(body, (error) => {
        if (!error) sentBytes += body.length;
      });
      return;
    }
    const piece = Buffer.alloc(64 * 1024, 'a');
    let queued = 0;
    const pump = () => {
      while (open && queued < body.bytes) {
        const data = piece.subarray(0, Math.min(piece.length, body.bytes - queued));
        queued += data.length;
        const framed = body.chunked
          ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')])
          : data;
        const more = socket.write(framed, (error) => {
          if (!error) sentBytes += data.length;
        });
        if (!more) return void socket.once('drain', pump);
      }
      if (open && body.chunked) socket.write('0\r\n\r\n');
    };
    pump();
  });
}
