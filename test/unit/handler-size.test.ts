import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * A function's handler is wiring (docs/contributing.md): the routes or the queue it serves, each to a
 * workflow or a runtime handler. At most 20 lines, not counting blank ones: what is more is logic, which
 * belongs to a workflow that tests can reach without the Lambda event.
 */

const FUNCTIONS = join(__dirname, '../../functions');
const MAX_LINES = 20;

const handlers = readdirSync(FUNCTIONS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

it('finds the handlers', () => {
  expect(handlers).toEqual(expect.arrayContaining(['discovery', 'site-files', 'visitor']));
});

it.each(handlers)('functions/%s/handler.ts is at most 20 lines', (name) => {
  const text = readFileSync(join(FUNCTIONS, name, 'handler.ts'), 'utf8');
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  expect(lines.length).toBeLessThanOrEqual(MAX_LINES);
});
