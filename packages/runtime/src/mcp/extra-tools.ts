import type * as z from 'zod/mini';
import {
  FindPagesInput,
  GetJobInput,
  ListRevisionsInput,
  notFound,
  RestoreRevisionInput,
  UsageQuery,
  type McpExtraTool,
} from '@cm/contract';
import { pageTypeOfId, siteRoot } from '@cm/core';
import { findPages, type ListingReader } from '@cm/publishing';
import { pagesBaseUrlOf, validate } from '../http/request';
import { decodePageList } from './replies.decoder';
import { callRoute, readJob, routeEvent, type Caller, type Json } from './route-calls';

/* The tools only MCP has: get_job, get_usage, find_pages and a page's revisions, each on the route functions REST calls. */

const parse = <S extends z.ZodMiniType>(schema: S, args: Json): z.output<S> => validate(schema, args, 'body');

const getJob = (caller: Caller, args: Json) => {
  const input = parse(GetJobInput, args);
  return readJob(caller, input.job_id, input.wait_ms);
};

const getUsage = async (caller: Caller, args: Json) => {
  const input = parse(UsageQuery, args);
  const query: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) if (value !== undefined) query[key] = value;
  const [usage, budget] = await Promise.all([
    callRoute('usage', routeEvent(caller, 'GET', '/v1/usage', 'GET /v1/usage', { query })),
    callRoute('usage', routeEvent(caller, 'GET', '/v1/budget', 'GET /v1/budget', {})),
  ]);
  return { ...usage, budget };
};

/** find_pages: the publishing workflow, reading the listing through the `read` function as GET /articles, /questions. */
const searchPages = (caller: Caller, args: Json) => {
  const readListing: ListingReader = async (type, { limit, cursor, status }) => {
    const path = `/${type}s`;
    const query: Record<string, string> = { limit: String(limit) };
    if (cursor) query.cursor = cursor;
    if (status) query.status = status;
    return decodePageList(await callRoute('read', routeEvent(caller, 'GET', path, `GET ${path}`, { query })));
  };
  const root = siteRoot(pagesBaseUrlOf(caller.event), { site_id: caller.siteId });
  return findPages(parse(FindPagesInput, args), readListing, root);
};

/** A page's REST path and route by its id (its type follows from it): 404 as REST answers for an id of no page. */
function pageRoute(id: string): { path: string; route: string } {
  const type = pageTypeOfId(id);
  if (!type) throw notFound(`No page with id ${id}`);
  return { path: `/${type}s/${encodeURIComponent(id)}`, route: `/${type}s/{id}` };
}

/** list_revisions: GET /articles/{id}/revisions (or /questions/…) on the `read` function. */
const listRevisions = (caller: Caller, args: Json) => {
  const { id, limit, cursor } = parse(ListRevisionsInput, args);
  const { path, route } = pageRoute(id);
  const query: Record<string, string> = {};
  if (limit !== undefined) query.limit = String(limit);
  if (cursor !== undefined) query.cursor = cursor;
  const event = routeEvent(caller, 'GET', `${path}/revisions`, `GET ${route}/revisions`, { query, params: { id } });
  return callRoute('read', event);
};

/** restore_revision: POST /articles/{id}/revisions/{revision_id}/restore (or /questions/…) on the `publish` function. */
const restoreRevision = (caller: Caller, args: Json) => {
  const { id, revision_id } = parse(RestoreRevisionInput, args);
  const { path, route } = pageRoute(id);
  const event = routeEvent(
    caller,
    'POST',
    `${path}/revisions/${encodeURIComponent(revision_id)}/restore`,
    `POST ${route}/revisions/{revision_id}/restore`,
    { params: { id, revision_id } },
  );
  return callRoute('publish', event);
};

/** Each MCP-only tool's call. */
export const EXTRA_TOOL_CALLS: Record<McpExtraTool, (caller: Caller, args: Json) => Promise<Json>> = {
  get_job: getJob,
  get_usage: getUsage,
  find_pages: searchPages,
  list_revisions: listRevisions,
  restore_revision: restoreRevision,
};
