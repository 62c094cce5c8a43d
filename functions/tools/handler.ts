import { ApiError, toolListing } from '@cm/contract';
import { api, json } from '@cm/runtime';

let listing: ReturnType<typeof toolListing> | undefined;

export const handler = api('tools', {
  'GET /v1/tools': async () => json(200, (listing ??= toolListing())),
  // Every tool has its own route; a name that reaches this one is no tool.
  'POST /v1/tools/{name}': async ({ event }) => {
    const name = event.pathParameters?.name ?? '';
    throw new ApiError('unknown_tool', `There is no tool named ${JSON.stringify(name)}; GET /v1/tools lists them`, {
      name,
    });
  },
});
