import * as z from 'zod/mini';

/*
 * The environment is an input like any other: its numeric variables are decoded here, once, so that a
 * typo stops the function at start naming the variable, instead of running on NaN.
 */

/** A number in a variable, within `[min, max]` (whole unless `fraction`); `what` says what it must be. */
export function numberVariable(what: string, min: number, max = Infinity, fraction = false) {
  return z.optional(
    z.pipe(
      z.string(),
      z.transform((value, ctx) => {
        const number = Number(value.trim() === '' ? NaN : value);
        if (Number.isFinite(number) && number >= min && number <= max && (fraction || Number.isInteger(number)))
          return number;
        ctx.issues.push({ code: 'custom', message: `must be ${what}`, input: value });
        return z.NEVER;
      }),
    ),
  );
}

/**
 * The variables of `env` that `schema` reads, decoded; an empty variable counts as unset. One that does
 * not fit throws, naming each variable, what it must be and what it was.
 */
export function decodeEnvironment<Shape extends z.core.$ZodLooseShape>(
  schema: z.ZodMiniObject<Shape>,
  env: NodeJS.ProcessEnv,
): z.infer<z.ZodMiniObject<Shape>> {
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value));
  const parsed = z.safeParse(schema, set);
  if (parsed.success) return parsed.data;
  const wrong = parsed.error.issues.map(({ path, message }) => {
    const name = String(path[0]);
    return `${name} ${message} (not ${JSON.stringify(set[name])})`;
  });
  throw new Error(`The environment is not valid: ${wrong.join('; ')}`);
}
