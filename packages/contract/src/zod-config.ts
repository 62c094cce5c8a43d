import { en } from 'zod/locales';
import * as z from 'zod/mini';

/*
 * zod's configuration, made once per process. It is the contract's one module with side effects
 * (package.json says so), so a bundle keeps it wherever the contract's schemas are, and can leave
 * out the schemas of common.ts it does not use.
 */

// zod/mini loads no locale, so every message would read "Invalid input"; the messages are classic zod's English ones.
z.config(en());

// A missing required field reads "Required", as docs/api/conventions.md#validation-errors shows, instead of zod's type
// message, or for an enum its "Invalid option" one.
z.config({
  customError: (issue) =>
    (issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input === undefined
      ? 'Required'
      : undefined,
});
