/**
 * What `start` makes, made before a test file's tests and ended by `stop` after them: the setup a file
 * would otherwise write as a `let`, a `beforeAll` and an `afterAll`. What it returns stands for the value
 * once made; reading it outside a test or a hook throws.
 */
export function fileScoped<T extends object>(start: () => Promise<T>, stop: (value: T) => Promise<void>): T {
  let made: T | undefined;
  beforeAll(async () => {
    made = await start();
  }, 60_000);
  afterAll(() => (made === undefined ? undefined : stop(made)));
  return new Proxy({} as T, {
    get(_target, property) {
      if (made === undefined) throw new Error('read before its beforeAll made it');
      const value: unknown = Reflect.get(made, property);
      return typeof value === 'function' ? value.bind(made) : value;
    },
  });
}
