import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * IANA's global unicast allocation (RFC 4291 §2.4): every IPv6 address outside it (the IPv4-compatible
 * ::/96 among them, which ipaddr.js would call unicast) is special-purpose or unallocated.
 */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** An address as ipaddr.js reads it: without the brackets of a URL's IPv6 host, nor a zone (`%eth0`). */
const bareAddress = (address: string) => address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');

/**
 * The range ipaddr.js names an address by (its registry of special-purpose ranges: `private`,
 * `loopback`, `linkLocal`, `carrierGradeNat`, `ipv4Mapped`, `6to4`, `teredo`, `rfc6052` (NAT64)…), or
 * `unicast` for a globally routable one. Any form ipaddr.js reads is classified (`0x7f.1` is 127.0.0.1);
 * what it cannot read is `invalid`.
 */
export function addressRange(address: string): string {
  const ip = bareAddress(address);
  if (!ipaddr.isValid(ip)) return 'invalid';
  const parsed = ipaddr.parse(ip);
  const range = parsed.range();
  if (range === 'unicast' && parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return 'notGlobalUnicast';
  return range;
}

/**
 * Whether research may connect to an address: only a globally routable unicast one, in its standard
 * form. Everything else (private, loopback, link-local with the cloud metadata address, CGNAT,
 * multicast, reserved, broadcast, unspecified, and the IPv6 forms that carry an IPv4 address inside:
 * mapped, compatible, 6to4, Teredo, NAT64) is refused, since it may reach this machine or its network.
 */
export function isPublicAddress(address: string): boolean {
  const ip = bareAddress(address);
  return isIP(ip) !== 0 && addressRange(ip) === 'unicast';
}

/** Host names that only ever mean this machine or its private network. */
const PRIVATE_NAMES = /(^|\.)(localhost|local|internal|home\.arpa|localdomain)$/i;

/**
 * What can be said of a URL's host before any lookup: an IP literal (in any form a resolver would read
 * as one, `2130706433` or `0x7f.1` too) that is not public, or a name reserved for private networks, is
 * refused; any other name must be checked once resolved.
 */
export function hostRefusal(host: string): string | null {
  const bare = host.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(bare))
    return isPublicAddress(ipaddr.parse(bare).toString()) ? null : `${host} is not a public address`;
  if (PRIVATE_NAMES.test(bare.replace(/\.$/, ''))) return `${host} names a private host`;
  return null;
}

/**
 * What can be said of a host name once resolved: refused when it resolves to nothing, or when any of
 * its addresses is not allowed (by default: not public), since a connection may go to any of them.
 */
export function addressRefusal(
  host: string,
  addresses: readonly string[],
  isAllowed: (address: string) => boolean = isPublicAddress,
): string | null {
  if (addresses.length === 0) return `${host} does not resolve`;
  const denied = addresses.find((a) => !isAllowed(a));
  return denied === undefined ? null : `${host} resolves to ${denied}, not a public address`;
}

/**
 * Whom a count per address counts: an IPv4 address (an IPv4-mapped IPv6 one read as it), or an IPv6
 * address's /64, which one subscriber holds whole (RFC 6177) and could otherwise walk for a fresh
 * count with each address. What is no address is counted as it came.
 */
export function addressCounted(address: string): string {
  const ip = bareAddress(address);
  if (!ipaddr.isValid(ip)) return address;
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${parsed.toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}
