import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ResourceNotFoundError,
  type CacheHint,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType,
  type ServerOptions,
} from '@modelcontextprotocol/server';
import { MCP_APP_MIME_TYPE, MCP_APPS } from '@cm/contract';
import { getConfig } from '../config';
import { KEPT_FOR, RESULT_ID, RESULTS_URI, resultMaxBytes } from './paging';
import type { Caller } from './route-calls';

/*
 * resources/list, resources/templates/list and resources/read: the MCP Apps (ui://, their HTML read
 * from the function's folder only when a host asks for one) and kept results (cm://results/…),
 * read in pieces of at most MCP_RESULT_MAX_BYTES.
 */

/** A resource that is not there: JSON-RPC's -32602 (Invalid Params), as the v2 SDK answers it in both eras. */
const notFound = (uri: string, why: string) => new ResourceNotFoundError(uri, `Resource not found: ${why}`);

/** How long the lists, and what every caller reads alike, may be kept by a client (2026-07-28's cache hints). */
const SHARED_FOR_MS = 3_600_000;
const SHARED: CacheHint = { ttlMs: SHARED_FOR_MS, cacheScope: 'public' };

/**
 * The cache hints of 2026-07-28 results: the lists are the same for every caller (public, an hour);
 * a read is the caller's own unless it says otherwise (an App's HTML is everyone's, a kept result its
 * site's until it expires).
 */
export const CACHE_HINTS: ServerOptions['cacheHints'] = {
  'server/discover': SHARED,
  'tools/list': SHARED,
  'resources/list': SHARED,
  'resources/templates/list': SHARED,
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
};

/** An App may load nothing from outside itself: no fetch, no image, script or style from elsewhere. */
const APP_META = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } };

export const RESOURCES: Resource[] = Object.entries(MCP_APPS).map(([name, app]) => ({
  uri: app.uri,
  name,
  title: app.title,
  description: app.description,
  mimeType: MCP_APP_MIME_TYPE,
  _meta: APP_META,
}));

export const RESOURCE_TEMPLATES: ResourceTemplateType[] = [
  {
    uriTemplate: `${RESULTS_URI}{result_id}{?piece}`,
    name: 'kept_result',
    title: 'A large tool result, whole',
    description: `A tool result too large for one reply, as the call answered it, kept ${KEPT_FOR}: its JSON text in pieces (piece 1 first; each piece's _meta names the next). Linked from the result's page.result_uri.`,
    mimeType: 'application/json',
  },
];

/** Each App's HTML by its file name, once read. */
const appHtml = new Map<string, Promise<string>>();

/** An App's HTML, read once per container from the built Apps' folder (bundled beside the handler). */
function readApp(file: string): Promise<string> {
  let html = appHtml.get(file);
  if (!html) {
    html = readFile(join(getConfig().mcpAppsDir ?? join(__dirname, 'mcp-apps'), file), 'utf8');
    // A failed read is tried again by the next request.
    html.catch(() => appHtml.delete(file));
    appHtml.set(file, html);
  }
  return html;
}

/** A kept result's URI, with the piece asked for. */
const RESULT_URI = new RegExp(`^${RESULTS_URI}(${RESULT_ID})(?:\\?piece=(\\d{1,6}))?$`);

/** Where each piece of `bytes` starts, pieces of at most `max` bytes cut between UTF-8 characters. */
function pieceStarts(bytes: Buffer, max: number): number[] {
  const starts = [0];
  let start = 0;
  while (bytes.length - start > max) {
    let at = start + max;
    // A continuation byte (10xxxxxx) is inside a character: cut before the character.
    while (at > start + 1 && ((bytes[at] ?? 0) & 0xc0) === 0x80) at--;
    starts.push(at);
    start = at;
  }
  return starts;
}

async function readResult(caller: Caller, uri: string): Promise<ReadResourceResult> {
  const [, id, pieceParam] = RESULT_URI.exec(uri) ?? [];
  const piece = Number(pieceParam ?? '1');
  const kept = id && (await caller.results.read(caller.siteId, id, new Date()));
  if (!id || !kept) throw notFound(uri, `no kept result of this site has this id (results are kept ${KEPT_FOR})`);
  const bytes = Buffer.from(kept.json, 'utf8');
  const starts = pieceStarts(bytes, resultMaxBytes());
  const start = starts[piece - 1];
  if (start === undefined || piece < 1) throw notFound(uri, `the result has pieces 1 to ${starts.length}`);
  const end = starts[piece] ?? bytes.length;
  const whole = starts.length === 1;
  // A kept result does not change: its site may keep it until it expires.
  const keptFor = Math.max(0, kept.expires_at * 1000 - Date.now());
  return {
    ttlMs: Math.min(keptFor, SHARED_FOR_MS),
    cacheScope: 'private',
    contents: [
      {
        uri,
        // A piece of a larger result is a slice of its JSON text: the pieces in order make the JSON.
        mimeType: whole ? 'application/json' : 'text/plain',
        text: bytes.subarray(start, end).toString('utf8'),
        _meta: {
          tool: kept.tool,
          piece,
          pieces: starts.length,
          next: piece < starts.length ? `${RESULTS_URI}${id}?piece=${piece + 1}` : null,
          expires_at: new Date(kept.expires_at * 1000).toISOString(),
        },
      },
    ],
  };
}

/** resources/read: an App's HTML, or a piece of one of the caller's kept results. */
export async function readResource(caller: Caller, uri: string): Promise<ReadResourceResult> {
  const app = Object.values(MCP_APPS).find((candidate) => candidate.uri === uri);
  if (app)
    return {
      ...SHARED,
      contents: [{ uri, mimeType: MCP_APP_MIME_TYPE, text: await readApp(app.file), _meta: APP_META }],
    };
  if (uri.startsWith(RESULTS_URI)) return readResult(caller, uri);
  throw notFound(uri, 'resources/list and resources/templates/list name what there is');
}
