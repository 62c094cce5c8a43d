import { FUNCTION_ENTRIES, SIDE_MODULES } from './bundling';
import { writeSideModule } from './bundle-report';

/** `tsx infra/side-module-cli.ts <function> <dir>`: what a function's bundling runs to put its side module (SIDE_MODULES) beside its index.js. */
const [name, dir] = process.argv.slice(2);
const fn = FUNCTION_ENTRIES.find((entry) => entry === name);
const side = fn && SIDE_MODULES[fn];
if (!fn || !side || !dir) {
  console.error(`usage: side-module-cli.ts <${Object.keys(SIDE_MODULES).join('|')}> <output directory>`);
  process.exit(2);
}
writeSideModule(fn, dir).then(
  () => console.log(`${fn}: ${side.file} in ${dir}`),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
