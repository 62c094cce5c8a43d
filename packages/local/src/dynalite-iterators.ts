import { createRequire } from 'node:module';

interface LevelIterator {
  close(): Promise<void>;
  return?: (this: LevelIterator) => Promise<IteratorReturnResult<undefined>>;
}

const isLevelIterator = (value: unknown): value is LevelIterator =>
  typeof value === 'object' && value !== null && 'close' in value && typeof value.close === 'function';

/**
 * The prototypes of `abstract-level`'s iterator classes, as the storage dynalite runs on loads it: `path`
 * is the chain of packages that requires it.
 */
function iteratorPrototypes(path: readonly string[]): LevelIterator[] {
  let from = __filename;
  for (const name of path) from = createRequire(from).resolve(name);
  const level: unknown = createRequire(from)('abstract-level');
  return ['AbstractIterator', 'AbstractKeyIterator', 'AbstractValueIterator'].map((name) => {
    const Iterator: unknown = typeof level === 'object' && level !== null ? Reflect.get(level, name) : undefined;
    const prototype: unknown = typeof Iterator === 'function' ? Iterator.prototype : undefined;
    if (!isLevelIterator(prototype))
      throw new Error(`abstract-level (through ${path.join(' → ')}) has no ${name} class`);
    return prototype;
  });
}

/**
 * dynalite 4 ends the stream of each Query and Scan by calling its LevelDB iterator's `return()`, which
 * abstract-level's iterators do not have (they end with `close()`). So no iterator was ever closed: each
 * stayed attached to the database with its snapshot, and a long-running stack grew by hundreds of MB an
 * hour (on disk and in memory alike) until it died. Giving the iterators the `return()` dynalite calls
 * closes each as its stream ends or is cut short at a Limit or 1 MB.
 */
export function closeDynaliteIterators(): void {
  for (const storage of [
    ['dynalite', 'level', 'classic-level'],
    ['dynalite', 'memory-level'],
  ]) {
    for (const prototype of iteratorPrototypes(storage)) {
      prototype.return ??= async function (this: LevelIterator) {
        await this.close();
        return { done: true, value: undefined };
      };
    }
  }
}
