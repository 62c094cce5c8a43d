import { CommunityAnswerInput, PageIdParams, SummaryInput } from '@cm/contract';
import { addCommunityAnswer, questionId, setQuestionSummary } from '@cm/publishing';
import { api, getStore, json } from '@cm/runtime';

export const handler = api('question-parts', {
  'PUT /questions/{id}/summary': async (request) => {
    const id = questionId(request.params(PageIdParams).id);
    return json(200, await setQuestionSummary(getStore(), request.siteId, id, request.body(SummaryInput).summary));
  },
  'POST /questions/{id}/answers': async (request) => {
    const id = questionId(request.params(PageIdParams).id);
    return json(201, await addCommunityAnswer(getStore(), request.siteId, id, request.body(CommunityAnswerInput)));
  },
});
