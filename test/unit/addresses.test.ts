import { addressCounted, addressRange, addressRefusal, hostRefusal, isPublicAddress } from '@cm/core';
import { matrixFigure, PUBLIC_ADDRESSES, REFUSED_ADDRESSES, REFUSED_URLS } from '../helpers/ssrf-matrix';

/* The address policy of url research, over the whole SSRF matrix (test/helpers/ssrf-matrix.ts). */

describe('public addresses for url research', () => {
  afterAll(() => {
    const refused =
      REFUSED_ADDRESSES.filter(({ address }) => !isPublicAddress(address)).length +
      REFUSED_URLS.filter(({ url }) => hostRefusal(new URL(url).hostname)).length;
    console.log(matrixFigure(refused, REFUSED_ADDRESSES.length + REFUSED_URLS.length, 'addresses and URL forms'));
  });

  it.each(REFUSED_ADDRESSES)('refuses $address ($what): ipaddr.js calls it $range', ({ address, range }) => {
    expect(addressRange(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
    expect(isPublicAddress(`[${address}]`)).toBe(false);
    expect(hostRefusal(address)).toBe(`${address} is not a public address`);
    expect(addressRefusal('name.example', [address])).toBe(`name.example resolves to ${address}, not a public address`);
  });

  it.each(PUBLIC_ADDRESSES)('allows %s, globally routable unicast', (address) => {
    expect(addressRange(address)).toBe('unicast');
    expect(isPublicAddress(address)).toBe(true);
    expect(hostRefusal(address)).toBeNull();
  });

  it.each(REFUSED_URLS)('refuses the host of $url ($what) before any lookup', ({ url }) => {
    expect(hostRefusal(new URL(url).hostname)).toMatch(/is not a public address|names a private host/);
  });

  it('refuses the numeric forms a resolver reads as IPv4 even when no URL parser normalised them', () => {
    for (const host of ['2130706433', '0x7f000001', '0177.0.0.1', '0x7f.1', '127.1', '0xa9fea9fe']) {
      expect([host, hostRefusal(host)]).toEqual([host, `${host} is not a public address`]);
      // Not a standard form: never an address to connect to as is.
      expect(isPublicAddress(host)).toBe(false);
    }
    expect(hostRefusal('0x08080808')).toBeNull(); // 8.8.8.8
  });

  it('refuses what is no address at all', () => {
    for (const text of ['', 'example.com', '1.2.3.4.5', '256.1.1.1', '::ffff::1', 'fe80::1%']) {
      expect([text, isPublicAddress(text)]).toEqual([text, false]);
    }
    expect(addressRange('example.com')).toBe('invalid');
  });

  it('refuses a resolved name when any of its addresses is not public, or when it resolves to nothing', () => {
    expect(addressRefusal('split.example', ['93.184.216.34', '10.1.2.3'])).toBe(
      'split.example resolves to 10.1.2.3, not a public address',
    );
    expect(addressRefusal('tunnel.example', ['2606:4700:4700::1111', '2002:7f00:1::1'])).toBe(
      'tunnel.example resolves to 2002:7f00:1::1, not a public address',
    );
    expect(addressRefusal('gone.example', [])).toBe('gone.example does not resolve');
    expect(addressRefusal('public.example', ['93.184.216.34', '2606:4700:4700::1111'])).toBeNull();
    expect(addressRefusal('test.example', ['127.0.0.1'], () => true)).toBeNull();
  });

  it('refuses names reserved for private networks before any lookup, and leaves other names to the lookup', () => {
    for (const host of [
      'localhost',
      'localhost.',
      'api.localhost',
      'printer.local',
      'metadata.google.internal',
      'router.home.arpa',
      'box.localdomain',
    ]) {
      expect([host, hostRefusal(host)]).toEqual([host, `${host} names a private host`]);
    }
    for (const host of ['example.com', 'localhost.example.com', 'local.example', '127.0.0.1.nip.example']) {
      expect([host, hostRefusal(host)]).toEqual([host, null]);
    }
  });
});

describe('whom a count per address counts', () => {
  it("counts an IPv6 address by its /64, so walking a subscriber's own prefix gets no fresh count", () => {
    expect(addressCounted('2001:db8:1:2:aaaa::1')).toBe(addressCounted('2001:db8:1:2:bbbb:cccc:dddd:eeee'));
    expect(addressCounted('[2001:db8:1:2::9]')).toBe('2001:db8:1:2::/64');
    expect(addressCounted('2001:db8:1:3::1')).not.toBe(addressCounted('2001:db8:1:2::1'));
  });

  it('counts an IPv4 address as itself, in whatever form it came, and what is no address as it came', () => {
    expect(addressCounted('203.0.113.7')).toBe('203.0.113.7');
    expect(addressCounted('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressCounted('203.0.113.8')).not.toBe(addressCounted('203.0.113.7'));
    expect(addressCounted('')).toBe('');
    expect(addressCounted('not an address')).toBe('not an address');
  });
});
