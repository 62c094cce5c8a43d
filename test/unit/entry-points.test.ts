import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * A package's entry points say what it offers by name: `export *` would pass on whatever a module adds,
 * and hide from knip an export nothing uses. (contract and store join the list as their entry points do.)
 */

const ROOT = join(__dirname, '..', '..');
const PACKAGES = ['core', 'runtime', 'providers', 'publishing', 'tools', 'local', 'store', 'contract'];

const entryPointsOf = (name: string): string[] => {
  const manifest: { exports: Record<string, string> } = JSON.parse(
    readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8'),
  );
  return Object.values(manifest.exports).map((file) => join('packages', name, file));
};

it.each(PACKAGES)('the entry points of @cm/%s export by name', (name) => {
  const starred = entryPointsOf(name).filter((file) => /^export \*/m.test(readFileSync(join(ROOT, file), 'utf8')));
  expect(starred).toEqual([]);
});
