import { domainToASCII, domainToUnicode } from 'node:url';
import { Domain } from '@cm/contract';

/**
 * A domain as entered (`https://www.Example.com:443/path?q`) as the service stores it (`example.com`):
 * scheme, credentials, port, path, query and a leading `www.` stripped, lower-cased, and an
 * internationalised name in its punycode form (`münchen.de` → `xn--mnchen-3ya.de`), as DNS and the
 * providers know it. Null when what is left is no hostname.
 */
export function normalizeDomain(input: string): string | null {
  let host = input.trim().toLowerCase();
  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/^\/\//, '');
  host = host.split(/[/?#]/, 1)[0] ?? '';
  host = host.slice(host.lastIndexOf('@') + 1);
  host = host
    .replace(/:\d*$/, '')
    .replace(/\.$/, '')
    .replace(/^www\./, '');
  // IDNA, as a browser's address bar does it; '' for a name that has no ASCII form.
  if ([...host].some((c) => c.charCodeAt(0) > 0x7f)) host = domainToASCII(host);
  return Domain.safeParse(host).success ? host : null;
}

/** How a stored domain is shown to people: an internationalised one in Unicode (`münchen.de`), else as stored. */
export const displayDomain = (domain: string): string =>
  domain.split('.').some((label) => label.startsWith('xn--')) ? domainToUnicode(domain) || domain : domain;

/** Whether a result's host belongs to a domain: the domain itself or one of its subdomains. */
export const belongsTo = (host: string, domain: string): boolean => {
  const h = host.toLowerCase().replace(/^www\./, '');
  return h === domain || h.endsWith(`.${domain}`);
};

/** The host of a result as share of voice counts it: lower case, without `www.`. */
export const resultDomain = (host: string): string => host.toLowerCase().replace(/^www\./, '');
