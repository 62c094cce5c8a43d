import * as z from 'zod/mini';
import { named, Slug } from './common';
import { PageIdParams } from './pages';

/* Renaming a page and its old slugs' redirects (docs/api/publishing.md#renaming-a-page). */

/** `POST /articles/{id}/rename`: the page's new slug, by the slug rules of a publish. */
export const RenameInput = z.object({ slug: Slug });
export type RenameInput = z.infer<typeof RenameInput>;

/** `DELETE /articles/{id}/redirects/{slug}`: the page, and the old slug whose redirect goes. */
export const RedirectParams = z.extend(PageIdParams, { slug: Slug });

const Redirect = z.object({
  slug: z.string(),
  url: z.string().check(z.meta({ description: 'The old URL, which answers 301 to the page.' })),
});

export const PageRedirects = named(
  z.object({
    id: z.string(),
    type: z.enum(['article', 'question']),
    slug: z.string().check(z.meta({ description: "The page's current slug." })),
    url: z.string().check(z.meta({ description: 'The visitor page.' })),
    redirects: z.array(Redirect).check(
      z.meta({
        description: 'Its old slugs, each reserved and answering 301 to the page until its redirect is removed.',
      }),
    ),
  }),
  { id: 'PageRedirects' },
);
export type PageRedirects = z.infer<typeof PageRedirects>;
