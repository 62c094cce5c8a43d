import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { buildDashboard } from '@cm/dashboard/build';
import { buildMcpApps } from '@cm/dashboard/mcp-apps';

/*
 * The dashboard's app and the MCP Apps' HTML of in-memory stacks, built once per version of their
 * sources and kept in node_modules/.cache/cm-local/<hash>/: every stack of every test file and
 * worker (a jest worker loads this module afresh for each file) serves the same build, made by the
 * same functions the bundling runs. A change to any source they are built from is a new hash.
 */

const ROOT = join(__dirname, '..', '..', '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'cm-local');

/** What the builds are made from: the dashboard package, the contract it imports, and the locked dependencies. */
const SOURCES = ['packages/dashboard/app', 'packages/dashboard/src', 'packages/contract/src', 'package-lock.json'];

function filesOf(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesOf(join(path, name)));
}

/** A hash of every source file's path and content. */
function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const file of SOURCES.flatMap((source) => filesOf(join(ROOT, source)))) {
    hash.update(relative(ROOT, file));
    hash.update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

export interface LocalBuilds {
  dashboardDir: string;
  mcpAppsDir: string;
}

let builds: Promise<LocalBuilds> | undefined;

/**
 * The builds of the sources as they are: from the cache, or built into a folder of this process's
 * own and then moved into the cache in one rename (two processes building at once both succeed: the
 * first rename wins, the other's build is dropped).
 */
export function cachedBuilds(): Promise<LocalBuilds> {
  builds ??= (async () => {
    const dir = join(CACHE, sourcesHash());
    const found = { dashboardDir: join(dir, 'dashboard'), mcpAppsDir: join(dir, 'mcp-apps') };
    if (existsSync(join(dir, 'complete'))) return found;
    mkdirSync(CACHE, { recursive: true });
    const scratch = mkdtempSync(join(CACHE, 'building-'));
    try {
      await Promise.all([buildDashboard(join(scratch, 'dashboard')), buildMcpApps(join(scratch, 'mcp-apps'))]);
      mkdirSync(join(scratch, 'complete'));
      renameSync(scratch, dir);
      // Builds of sources as they were before are of no more use.
      for (const name of readdirSync(CACHE))
        if (name !== basename(dir) && !name.startsWith('building-'))
          rmSync(join(CACHE, name), { recursive: true, force: true });
    } catch (error) {
      rmSync(scratch, { recursive: true, force: true });
      if (!existsSync(join(dir, 'complete'))) throw error;
    }
    return found;
  })();
  return builds;
}
