import { randomUUID } from 'node:crypto';
import { CommunityAnswerInput, notFound, PageIdParams, SummaryInput } from '@cm/contract';
import { pageRecord, pageTypeOfId } from '@cm/core';
import { api, getStore, json, type ApiRequest } from '@cm/runtime';

/** The id of a question of this site, else 404 before any write. */
function questionId(request: ApiRequest): string {
  const { id } = request.params(PageIdParams);
  if (pageTypeOfId(id) !== 'question') throw notFound(`No question with id ${id}`);
  return id;
}

export const handler = api('question-parts', {
  'PUT /questions/{id}/summary': async (request) => {
    const id = questionId(request);
    const { summary } = request.body(SummaryInput);
    const pages = getStore().pages;
    const page = (await pages.setSummary(request.siteId, id, summary)) ? await pages.get(request.siteId, 'question', id) : null;
    if (!page) throw notFound(`No question with id ${id}`);
    return json(200, pageRecord(page));
  },
  'POST /questions/{id}/answers': async (request) => {
    const id = questionId(request);
    const input = request.body(CommunityAnswerInput);
    const answer = { answer_id: randomUUID(), author: input.author, blocks: input.blocks, created_at: new Date().toISOString() };
    if (!(await getStore().pages.addCommunityAnswer(request.siteId, id, answer))) throw notFound(`No question with id ${id}`);
    return json(201, { answer_id: answer.answer_id });
  },
});
