import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * One jest configuration (issue 51): each suite a project of jest.config.js, and each suite's npm script
 * selecting its projects, with the suite's own test timeout and, for the suites that run one file at a
 * time, one worker.
 */

const ROOT = join(__dirname, '../..');

interface Project {
  displayName: string;
  roots: string[];
  testPathIgnorePatterns: string[];
  globals?: { SUITE_TIMEOUT_MS?: number };
  setupFilesAfterEnv?: string[];
}

const config = require('../../jest.config.js') as { projects: Project[]; testTimeout: number };
const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};
const project = (name: string) => config.projects.find((p) => p.displayName === name);

/** The projects each run of jest in a script selects (`--selectProjects` takes the names up to the next option). */
const selected = (script: string): string[][] =>
  script.split('&&').map((command) => {
    const words = command.trim().split(/\s+/);
    const at = words.indexOf('--selectProjects');
    if (at < 0) return [];
    const names = words.slice(at + 1);
    const end = names.findIndex((word) => word.startsWith('-'));
    return end < 0 ? names : names.slice(0, end);
  });

it('is the only jest configuration at the root', () => {
  expect(readdirSync(ROOT).filter((file) => /^jest\..*config/.test(file))).toEqual(['jest.config.js']);
});

it('has a project a suite, each of its own folder under test/ but main, which is the rest', () => {
  expect(config.projects.map((p) => p.displayName)).toEqual([
    'main',
    'browser',
    'infra',
    'lighthouse',
    'reliability',
    'scale',
  ]);
  for (const name of ['browser', 'infra', 'lighthouse', 'reliability', 'scale']) {
    expect(project(name)?.roots).toEqual([`<rootDir>/test/${name}`]);
    expect(project('main')?.testPathIgnorePatterns).toContain(`<rootDir>/test/${name}/`);
  }
  expect(project('main')?.roots).toEqual(['<rootDir>/test']);
});

it("gives each suite its test timeout: 30 s, Lighthouse's 180 s, reliability's and scale's 300 s", () => {
  expect(config.testTimeout).toBe(30_000);
  const timeouts = Object.fromEntries(config.projects.map((p) => [p.displayName, p.globals?.SUITE_TIMEOUT_MS]));
  expect(timeouts).toEqual({
    main: undefined,
    browser: undefined,
    infra: undefined,
    lighthouse: 180_000,
    reliability: 300_000,
    scale: 300_000,
  });
  for (const p of config.projects)
    if (p.globals?.SUITE_TIMEOUT_MS !== undefined)
      expect(p.setupFilesAfterEnv).toEqual(['<rootDir>/test/helpers/suite-timeout.ts']);
});

it('runs each suite by its npm script, selecting its projects, the slow suites one file at a time', () => {
  expect(selected(scripts['test:jest'] ?? '')).toEqual([['main']]);
  expect(selected(scripts['test:quick'] ?? '')).toEqual([['main']]);
  expect(selected(scripts['test:browser'] ?? '')).toEqual([['browser']]);
  // test:infra runs its jest project beside the typecheck of the CDK app.
  expect(scripts['test:infra']).toMatch(/\btest:infra:jest\b/);
  expect(selected(scripts['test:infra:jest'] ?? '')).toEqual([['infra']]);
  expect(selected(scripts['test:coverage'] ?? '')).toEqual([['main', 'browser']]);
  expect(selected(scripts['test:dynamodb-local'] ?? '')).toEqual([['main', 'browser']]);
  expect(selected(scripts['test:lighthouse'] ?? '')).toEqual([['lighthouse']]);
  expect(selected(scripts['test:reliability'] ?? '')).toEqual([['reliability']]);
  expect(selected(scripts['test:scale'] ?? '')).toEqual([['scale'], ['scale']]);
  for (const name of ['test:lighthouse', 'test:reliability']) expect(scripts[name]).toContain('--maxWorkers=1');
  expect(scripts['test:coverage']).toContain('--coverage');
  expect(scripts['test:dynamodb-local']).toContain('--coverage');
  for (const script of Object.values(scripts)) expect(script).not.toMatch(/jest --config/);
});
