import { lookup } from 'node:dns/promises';
import { errorField } from './errors';

/**
 * Every address of a host name, as the system resolver (DNS and the hosts file) answers, unsorted; a
 * name that does not exist resolves to nothing, other lookup failures throw. url research checks these
 * addresses at the call and again when the page is fetched, so both use this one lookup.
 */
export async function resolveAll(host: string): Promise<string[]> {
  try {
    return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch (error) {
    if (errorField(error, 'code') === 'ENOTFOUND') return [];
    throw error;
  }
}
