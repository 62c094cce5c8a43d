import * as z from 'zod/mini';

/* The answer of a post to DataForSEO's SERP standard queue, decoded where it arrives (as responses.decoder.ts does the rest). */

const metric = z.nullish(z.number());

/** A standard-queue post's answer: each task's id, outcome and cost, and the tag it was sent with. */
export const PostedTasks = z.looseObject({
  status_code: z.number(),
  status_message: z.nullish(z.string()),
  tasks: z.nullish(
    z.array(
      z.looseObject({
        id: z.nullish(z.string()),
        status_code: z.number(),
        status_message: z.nullish(z.string()),
        cost: metric,
        data: z.nullish(z.looseObject({ tag: z.nullish(z.string()) })),
      }),
    ),
  ),
});
