/*
 * The SSRF matrix of url research: every kind of address it must never connect to, the URL forms that
 * spell them, and public addresses it must still reach. The unit, integration and reliability tests
 * all run this one table.
 */

/** An address url research refuses, with the range ipaddr.js names it by (`notGlobalUnicast`: outside 2000::/3). */
export interface RefusedAddress {
  address: string;
  range: string;
  what: string;
}

export const REFUSED_ADDRESSES: readonly RefusedAddress[] = [
  // IPv4
  { address: '0.0.0.0', range: 'unspecified', what: 'unspecified' },
  { address: '0.1.2.3', range: 'unspecified', what: '"this network" (0.0.0.0/8)' },
  { address: '10.0.0.1', range: 'private', what: 'private 10/8' },
  { address: '10.255.255.254', range: 'private', what: 'private 10/8, last host' },
  { address: '172.16.0.1', range: 'private', what: 'private 172.16/12' },
  { address: '172.31.255.255', range: 'private', what: 'private 172.16/12, last address' },
  { address: '192.168.0.1', range: 'private', what: 'private 192.168/16' },
  { address: '192.168.255.254', range: 'private', what: 'private 192.168/16, last host' },
  { address: '127.0.0.1', range: 'loopback', what: 'loopback' },
  { address: '127.8.9.10', range: 'loopback', what: 'loopback 127/8' },
  { address: '169.254.169.254', range: 'linkLocal', what: 'cloud metadata (EC2, GCP, Azure)' },
  { address: '169.254.170.2', range: 'linkLocal', what: 'ECS task metadata' },
  { address: '169.254.0.1', range: 'linkLocal', what: 'link-local' },
  { address: '100.64.0.1', range: 'carrierGradeNat', what: 'CGNAT 100.64/10' },
  { address: '100.127.255.254', range: 'carrierGradeNat', what: 'CGNAT, last host' },
  { address: '224.0.0.1', range: 'multicast', what: 'multicast all hosts' },
  { address: '239.255.255.250', range: 'multicast', what: 'multicast SSDP' },
  { address: '255.255.255.255', range: 'broadcast', what: 'limited broadcast' },
  { address: '240.0.0.1', range: 'reserved', what: 'reserved 240/4' },
  { address: '192.0.0.9', range: 'reserved', what: 'IETF protocol assignments 192.0.0/24' },
  { address: '192.0.2.1', range: 'reserved', what: 'documentation TEST-NET-1' },
  { address: '198.51.100.1', range: 'reserved', what: 'documentation TEST-NET-2' },
  { address: '203.0.113.1', range: 'reserved', what: 'documentation TEST-NET-3' },
  { address: '198.18.0.1', range: 'reserved', what: 'benchmarking 198.18/15' },
  { address: '192.88.99.1', range: 'reserved', what: '6to4 relay anycast' },
  // IPv6
  { address: '::1', range: 'loopback', what: 'IPv6 loopback' },
  { address: '::', range: 'unspecified', what: 'IPv6 unspecified' },
  { address: 'fc00::1', range: 'uniqueLocal', what: 'unique-local fc00::/7' },
  { address: 'fd00:ec2::254', range: 'uniqueLocal', what: 'EC2 IPv6 metadata' },
  { address: 'fe80::1', range: 'linkLocal', what: 'IPv6 link-local' },
  { address: 'fe80::1%eth0', range: 'linkLocal', what: 'IPv6 link-local with a zone' },
  { address: 'fec0::1', range: 'deprecatedSiteLocal', what: 'deprecated site-local' },
  { address: 'ff02::1', range: 'multicast', what: 'IPv6 multicast all nodes' },
  { address: 'ff05::2', range: 'multicast', what: 'IPv6 multicast site-local' },
  { address: '::ffff:127.0.0.1', range: 'ipv4Mapped', what: 'IPv4-mapped loopback (dotted)' },
  { address: '::ffff:7f00:1', range: 'ipv4Mapped', what: 'IPv4-mapped loopback (hex)' },
  { address: '::ffff:169.254.169.254', range: 'ipv4Mapped', what: 'IPv4-mapped metadata' },
  { address: '::ffff:8.8.8.8', range: 'ipv4Mapped', what: 'IPv4-mapped, even of a public address' },
  { address: '::7f00:1', range: 'notGlobalUnicast', what: 'IPv4-compatible loopback (::/96)' },
  { address: '::a9fe:a9fe', range: 'notGlobalUnicast', what: 'IPv4-compatible metadata (::/96)' },
  { address: '::ffff:0:7f00:1', range: 'rfc6145', what: 'IPv4-translated (SIIT)' },
  { address: '2002:7f00:1::1', range: '6to4', what: '6to4 of 127.0.0.1 (2002::/16)' },
  { address: '2002:a9fe:a9fe::', range: '6to4', what: '6to4 of 169.254.169.254' },
  { address: '2002:808:808::1', range: '6to4', what: '6to4, even of a public address' },
  { address: '2001:0:4136:e378:8000:63bf:3fff:fdd2', range: 'teredo', what: 'Teredo (2001::/32)' },
  { address: '2001::1', range: 'teredo', what: 'Teredo prefix' },
  { address: '64:ff9b::7f00:1', range: 'rfc6052', what: 'NAT64 of 127.0.0.1 (64:ff9b::/96)' },
  { address: '64:ff9b::a9fe:a9fe', range: 'rfc6052', what: 'NAT64 of 169.254.169.254' },
  { address: '64:ff9b::808:808', range: 'rfc6052', what: 'NAT64, even of a public address' },
  { address: '64:ff9b:1::a00:1', range: 'rfc6052', what: 'local-use NAT64 (64:ff9b:1::/48)' },
  { address: '2001:db8::1', range: 'reserved', what: 'IPv6 documentation' },
  { address: '3fff::1', range: 'reserved', what: 'IPv6 documentation (3fff::/20)' },
  { address: '100::1', range: 'discard', what: 'discard-only 100::/64' },
  { address: '5f00::1', range: 'segmentRouting', what: 'SRv6 SIDs 5f00::/16' },
];

/** A URL whose host is, once the WHATWG URL parser has read it, one of the refused addresses or a private name. */
export interface RefusedUrl {
  url: string;
  what: string;
}

export const REFUSED_URLS: readonly RefusedUrl[] = [
  { url: 'https://127.0.0.1/', what: 'loopback literal' },
  { url: 'https://127.0.0.1./', what: 'loopback with a trailing dot' },
  { url: 'https://127.1/', what: 'loopback, short form' },
  { url: 'https://2130706433/', what: 'loopback, one decimal number' },
  { url: 'https://0x7f000001/', what: 'loopback, one hex number' },
  { url: 'https://017700000001/', what: 'loopback, one octal number' },
  { url: 'https://0177.0.0.1/', what: 'loopback, octal first part' },
  { url: 'https://0x7f.0.0.1/', what: 'loopback, hex first part' },
  { url: 'https://0x7f.1/', what: 'loopback, hex and short' },
  { url: 'https://127.000.000.001/', what: 'loopback, zero-padded' },
  { url: 'https://%31%32%37.0.0.1/', what: 'loopback, percent-encoded' },
  { url: 'https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/', what: 'loopback, full-width digits' },
  { url: 'https://0/', what: 'unspecified, one number' },
  { url: 'https://169.254.169.254/latest/meta-data/', what: 'metadata literal' },
  { url: 'https://2852039166/latest/meta-data/', what: 'metadata, one decimal number' },
  { url: 'https://0xa9.0xfe.0xa9.0xfe/', what: 'metadata, hex parts' },
  { url: 'https://0251.0376.0251.0376/', what: 'metadata, octal parts' },
  { url: 'https://3232235521/', what: 'private 192.168.0.1, one decimal number' },
  { url: 'https://0300.0250.0.1/', what: 'private 192.168.0.1, octal parts' },
  { url: 'https://10.0.0.7:8443/admin', what: 'private with a port' },
  { url: 'https://0xffffffff/', what: 'broadcast, one hex number' },
  { url: 'https://[::1]/', what: 'IPv6 loopback' },
  { url: 'https://[0:0:0:0:0:0:0:1]/', what: 'IPv6 loopback, long form' },
  { url: 'https://[::]/', what: 'IPv6 unspecified' },
  { url: 'https://[::ffff:127.0.0.1]/', what: 'IPv4-mapped loopback' },
  { url: 'https://[::ffff:a9fe:a9fe]/', what: 'IPv4-mapped metadata, hex' },
  { url: 'https://[::127.0.0.1]/', what: 'IPv4-compatible loopback' },
  { url: 'https://[fd00:ec2::254]/', what: 'EC2 IPv6 metadata' },
  { url: 'https://[fe80::1]/', what: 'IPv6 link-local' },
  { url: 'https://[2002:7f00:1::1]/', what: '6to4 of loopback' },
  { url: 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', what: 'Teredo' },
  { url: 'https://[64:ff9b::169.254.169.254]/', what: 'NAT64 of metadata' },
  { url: 'https://[64:ff9b:1::a00:1]/', what: 'local-use NAT64' },
  { url: 'https://localhost/', what: 'localhost' },
  { url: 'https://LOCALHOST./', what: 'localhost, upper case with a trailing dot' },
  { url: 'https://api.localhost/', what: 'a name under localhost' },
  { url: 'https://printer.local/', what: 'mDNS name' },
  { url: 'https://metadata.google.internal/computeMetadata/v1/', what: 'GCP metadata name' },
  { url: 'https://router.home.arpa/', what: 'home network name' },
];

/** Globally routable unicast addresses url research may connect to. */
export const PUBLIC_ADDRESSES: readonly string[] = [
  '93.184.216.34',
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '100.128.0.1',
  '169.255.0.1',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001:82a::200e',
];

/** A test DNS name that resolves to a refused address: `a-<n>.ssrf.test` is the n-th of REFUSED_ADDRESSES. */
export const nameOf = (index: number) => `a-${index}.ssrf.test`;

/** What the test DNS answers for the names of {@link nameOf}. */
export const SSRF_DNS: Readonly<Record<string, string[]>> = Object.fromEntries(
  REFUSED_ADDRESSES.map((entry, i) => [nameOf(i), [entry.address]]),
);

/** One line for a test's output: how much of the matrix was refused. */
export const matrixFigure = (refused: number, of: number, kind: string) =>
  `SSRF matrix: ${refused}/${of} ${kind} refused`;
