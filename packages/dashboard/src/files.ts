import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { ApiError } from '@cm/contract';

/** Where the app's hashed files are served; the HTML names them by this absolute path. */
export const ASSETS_PATH = '/dashboard/assets';

export interface DashboardFile {
  /** `index.html`, or `assets/<name>-<hash>.<ext>`. */
  name: string;
  body: Buffer;
}

/** A reply in API Gateway's shape (the runtime's `ApiResult`), text only. */
export interface FileReply {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * What the dashboard may do: run its own script and styles, call this API, show its own icon. Nothing
 * inline, nothing from elsewhere (it works with no internet), no frames, forms or base URL to subvert.
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const COMMON = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

/**
 * The dashboard's files from `dirOf()` (read on first use, then kept for the container's life): the
 * page, never cached so a deployment's new assets are picked up at once, and the hashed assets, cached
 * for a year since a change of content is a change of name.
 */
export function dashboardFiles(dirOf: () => string) {
  let files: { page: string; assets: Map<string, string> } | undefined;
  const load = () => {
    if (files) return files;
    const dir = dirOf();
    const names = readdirSync(join(dir, 'assets'));
    files = {
      page: readFileSync(join(dir, 'index.html'), 'utf8'),
      assets: new Map(names.map((name) => [name, readFileSync(join(dir, 'assets', name), 'utf8')])),
    };
    return files;
  };
  return {
    page: (): FileReply => ({
      statusCode: 200,
      headers: {
        ...COMMON,
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
        'content-security-policy': DASHBOARD_CSP,
        'x-frame-options': 'DENY',
      },
      body: load().page,
    }),
    asset: (name: string): FileReply => {
      const body = load().assets.get(name);
      const contentType = CONTENT_TYPES[extname(name)];
      if (body === undefined || !contentType) throw new ApiError('not_found', `No dashboard asset ${name}`);
      return {
        statusCode: 200,
        headers: { ...COMMON, 'content-type': contentType, 'cache-control': 'public, max-age=31536000, immutable' },
        body,
      };
    },
  };
}
