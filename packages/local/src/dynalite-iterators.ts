import { createRequire } from 'node:module';

interface LevelIterator {
  close(): Promise<void>;
  return?: (this: LevelIterator) => Promise<IteratorReturnResult<undefined>>;
}
type IteratorClasses = Record<
  'AbstractIterator' | 'AbstractKeyIterator' | 'AbstractValueIterator',
  { prototype: LevelIterator }
>;

/** `abstract-level` as the storage dynalite runs on loads it: `path` is the chain of packages that requires it. */
function abstractLevelThrough(path: readonly string[]): IteratorClasses {
  let from = __filename;
  for (const name of path) from = createRequire(from).resolve(name);
  return createRequire(from)('abstract-level') as IteratorClasses;
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
    const level = abstractLevelThrough(storage);
    for (const Iterator of [level.AbstractIterator, level.AbstractKeyIterator, level.AbstractValueIterator]) {
      Iterator.prototype.return ??= async function (this: LevelIterator) {
        await this.close();
        return { done: true, value: undefined };
      };
    }
  }
}
