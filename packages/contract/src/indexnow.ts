import * as z from 'zod/mini';

/*
 * IndexNow (https://www.indexnow.org/documentation): how a site served at its own domain tells search
 * engines which of its URLs changed. One queue message per site and debounce window; what it sends is
 * the site's pending URLs, read when the message is handled.
 */

/** A message on the indexnow queue: send the site's pending URLs. */
export const IndexNowMessage = z.object({ site_id: z.int().check(z.positive()) });
export type IndexNowMessage = z.infer<typeof IndexNowMessage>;

/** An IndexNow key: 8 to 128 of letters, digits and `-`, as the protocol allows. */
export const INDEXNOW_KEY = /^[a-zA-Z0-9-]{8,128}$/;
