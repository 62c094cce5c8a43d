import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/*
 * A TCP proxy in front of a loopback service that a test can cut: black-holed (connections are
 * accepted, nothing is forwarded or answered) or refusing (nothing listens on its port), and restored.
 */

export interface TcpProxy {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Accepts connections and never answers; connections open now go silent too. */
  blackHole(): void;
  /** Closes the port: connections are refused. */
  refuse(): Promise<void>;
  /** Forwards again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port: targetPort } = new URL(target);
  let mode: 'forward' | 'blackHole' = 'forward';
  const open = new Set<Socket>();
  const dropAll = () => {
    for (const socket of open) socket.destroy();
    open.clear();
  };
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const onConnection = (client: Socket) => {
    track(client);
    if (mode === 'blackHole') return; // held open, never read from or answered
    const upstream = connect(Number(targetPort), hostname);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => {
      // Black-holed: the client is left waiting instead of told.
      if (mode === 'forward') client.destroy();
    });
  };
  let server: Server = createServer(onConnection);
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const port = await listen(0);
  const stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    blackHole() {
      mode = 'blackHole';
      // Open connections go silent: their upstream side is cut, the client side is kept without a word.
      for (const socket of open) if (socket.remotePort === Number(targetPort)) socket.destroy();
    },
    async refuse() {
      await Promise.all([stop(), Promise.resolve(dropAll())]);
    },
    async restore() {
      mode = 'forward';
      dropAll();
      if (!server.listening) {
        server = createServer(onConnection);
        await listen(port);
      }
    },
    async close() {
      dropAll();
      if (server.listening) await stop();
    },
  };
}
