import { BlockList, isIP } from 'node:net';

/**
 * Addresses research never fetches: loopback, private, link-local (and with it the cloud metadata
 * address 169.254.169.254), carrier-grade NAT, multicast, reserved and documentation ranges, and
 * their IPv6 equivalents.
 */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d), -compatible or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIpv4(address: string): string | null {
  const m = /^(?:::ffff:|::|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!m) return null;
  if (m[1]) return m[1];
  const high = parseInt(m[2]!, 16);
  const low = parseInt(m[3]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether an IP address is a public one that research may fetch from. */
export function isPublicAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 4) return !NOT_PUBLIC.check(ip, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIpv4(ip.toLowerCase());
  if (v4 !== null) return isPublicAddress(v4);
  return !NOT_PUBLIC.check(ip, 'ipv6');
}

/** Host names that only ever mean this machine or its private network. */
const PRIVATE_NAMES = /(^|\.)(localhost|local|internal|home\.arpa|localdomain)$/i;

/**
 * What can be said of a URL's host before any lookup: an IP literal that is not public, or a name
 * reserved for private networks, is refused; any other name must be checked once resolved.
 */
export function hostRefusal(host: string): string | null {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return isPublicAddress(bare) ? null : `${host} is not a public address`;
  if (PRIVATE_NAMES.test(bare.replace(/\.$/, ''))) return `${host} names a private host`;
  return null;
}

/**
 * What can be said of a host name once resolved: refused when it resolves to nothing, or when any of
 * its addresses is not allowed (by default: not public), since a connection may go to any of them.
 */
export function addressRefusal(host: string, addresses: readonly string[], isAllowed: (address: string) => boolean = isPublicAddress): string | null {
  if (addresses.length === 0) return `${host} does not resolve`;
  const denied = addresses.find((a) => !isAllowed(a));
  return denied === undefined ? null : `${host} resolves to ${denied}, not a public address`;
}
