import { NotifyInput } from '@cm/contract';
import { notifyChange } from '@cm/publishing';
import { api, json, publishingContext } from '@cm/runtime';

export const handler = api('notify', {
  'POST /api/content/notify': async (request) => {
    const input = request.body(NotifyInput);
    request.observation.metric('notifies');
    return json(200, await notifyChange(publishingContext(), request.siteId, input));
  },
});
