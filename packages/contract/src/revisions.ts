import * as z from 'zod/mini';
import { PageStatus, named } from './common';
import { LIMITS } from './limits';
import { PageIdParams } from './pages';

/*
 * A page's revisions (docs/api/publishing.md#revisions): the versions its publishes replaced, listed newest
 * first, and a rollback to one, which publishes it again.
 */

const RevisionId = z.string().check(z.minLength(1), z.maxLength(100));

export const RevisionItem = z.object({
  revision_id: RevisionId,
  slug: z.string(),
  title: z.string().check(z.meta({ description: "An article's title, a question's question" })),
  status: PageStatus,
  updated_at: z.string(),
  ai_model: z.nullable(z.string()),
  stored_at: z
    .nullable(z.string())
    .check(z.meta({ description: 'When the publish that made this version was stored (null: before this was kept)' })),
  replaced_at: z.string().check(z.meta({ description: 'When a publish replaced it, and it was kept as a revision' })),
  expires_at: z.string().check(z.meta({ description: 'When it is deleted at the latest' })),
});
export type RevisionItem = z.infer<typeof RevisionItem>;

export const RevisionList = named(
  z.object({
    live_revision: z
      .string()
      .check(z.meta({ description: "The revision readers see now (the read reply's `revision`); never listed" })),
    items: z.array(RevisionItem),
    next_cursor: z.nullable(z.string()),
  }),
  { id: 'RevisionList' },
);
export type RevisionList = z.infer<typeof RevisionList>;

export const RevisionListQuery = z.object({
  limit: z._default(
    z.coerce.number().check(z.int(), z.minimum(1), z.maximum(LIMITS.revisionsPageMax)),
    LIMITS.revisionsPageDefault,
  ),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2000))),
});
export type RevisionListQuery = z.output<typeof RevisionListQuery>;

export const RevisionParams = z.extend(PageIdParams, { revision_id: RevisionId });

const PageId = z.string().check(z.minLength(1), z.maxLength(100));

/** MCP list_revisions: a page's revisions (its type follows from its id). */
export const ListRevisionsInput = z.object({
  id: PageId,
  limit: z.optional(z.int().check(z.minimum(1), z.maximum(LIMITS.revisionsPageMax))),
  cursor: z.optional(z.string()),
});

/** MCP restore_revision: a rollback of a page to one of its revisions. */
export const RestoreRevisionInput = z.object({ id: PageId, revision_id: RevisionId });

/*
 * What tools/list says of their results: the fields an agent acts on, in open objects (the replies are
 * RevisionList and PublishResult whole), so the list stays within its bound (docs/api/mcp.md#tools).
 */
export const ListedRevisions = z.object({
  live_revision: z.string(),
  items: z.array(z.looseObject({ revision_id: z.string(), updated_at: z.string() })),
  next_cursor: z.nullable(z.string()),
});
export const RestoredPage = z.looseObject({ id: z.string(), updated_at: z.string(), url: z.string() });
