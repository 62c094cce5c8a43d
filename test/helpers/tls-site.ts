import { readFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

const TLS = join(__dirname, '../fixtures/tls');

/** The test sites' certificate, self-signed for public.test, redirect.test, localhost and 127.0.0.1 (test/fixtures/tls/README.md): a fetch's `ca`. */
export const TEST_CA = readFileSync(join(TLS, 'cert.pem'));

export interface TlsSite {
  port: number;
  /** TCP connections accepted (a test may set it back to 0): a refusal must leave it unchanged. */
  connections: number;
  close(): Promise<void>;
}

/** An HTTPS stand-in for a public site, on a free port of `address`, counting the connections it accepts. */
export async function startTlsSite(address: string, handler: RequestListener): Promise<TlsSite> {
  const server = createServer({ cert: TEST_CA, key: readFileSync(join(TLS, 'key.pem')) }, handler);
  const site: TlsSite = {
    port: 0,
    connections: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', () => site.connections++);
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  site.port = (server.address() as AddressInfo).port;
  return site;
}
