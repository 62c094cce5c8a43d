import * as z from 'zod/mini';
import { decodeItem, stringSet } from './decode';

/* A slug's slot and a renamed page's redirects (redirects.ts). */

const SlugSlotItem = z.looseObject({ slug: z.optional(z.string()), slug_page: z.optional(z.string()) });
const RedirectsItem = z.looseObject({ slug: z.string(), redirect_slugs: z.optional(stringSet) });

export const decodeSlugSlot = (item: Record<string, unknown>) => decodeItem('slug slot', SlugSlotItem, item);
export const decodeRedirectsItem = (item: Record<string, unknown>) => decodeItem('page', RedirectsItem, item);
