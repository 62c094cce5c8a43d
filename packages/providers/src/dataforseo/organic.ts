import type { SerpItem } from '@cm/contract';
import type * as z from 'zod/mini';
import type { SerpResult } from './responses.decoder';

/**
 * Organic results only (ads, boxes and other item types are left out), positioned by `rank_group`; an
 * organic result without a place, a domain or a URL cannot be listed and is left out too.
 */
export function organicItems(result: ReadonlyArray<z.infer<typeof SerpResult>>, depth: number): SerpItem[] {
  return (result[0]?.items ?? []).flatMap(({ type, rank_group: position, domain, url, title }) =>
    type === 'organic' &&
    typeof position === 'number' &&
    position <= depth &&
    typeof domain === 'string' &&
    typeof url === 'string'
      ? [{ position, domain, url, title: title ?? '' }]
      : [],
  );
}
