import { ensureTable, startDynamo, type EmbeddedDynamo } from '@cm/local';
import { createDocumentClient, ElicitationStore } from '@cm/store';

/* Approval questions asked by elicitation: an answer is taken only for its site's question, while awaited, once. */

let dynamo: EmbeddedDynamo;
let questions: ElicitationStore;
beforeAll(async () => {
  dynamo = await startDynamo({ port: 0 });
  await ensureTable(dynamo.endpoint, 'elicit-test');
  questions = new ElicitationStore(createDocumentClient({ endpoint: dynamo.endpoint }), 'elicit-test');
});
afterAll(() => dynamo.close());

const now = () => Date.now();

it('takes the first answer to an awaited question of its site, and no other', async () => {
  await questions.ask(1, 'approval.first', now() + 60_000);
  expect(await questions.answerOf(1, 'approval.first')).toBeNull();
  expect(await questions.answer(2, 'approval.first', 'accept', now())).toBe(false);
  expect(await questions.answer(1, 'approval.never-asked', 'accept', now())).toBe(false);
  expect(await questions.answer(1, 'approval.first', 'decline', now())).toBe(true);
  expect(await questions.answer(1, 'approval.first', 'accept', now())).toBe(false);
  expect(await questions.answerOf(1, 'approval.first')).toBe('decline');
  expect(await questions.answerOf(2, 'approval.first')).toBeNull();
  // Closing after an answer keeps it: the call honours what came first.
  expect(await questions.close(1, 'approval.first', now())).toBe('decline');
});

it('refuses an answer once the question is closed or past its time', async () => {
  await questions.ask(1, 'approval.closed', now() + 60_000);
  expect(await questions.close(1, 'approval.closed', now())).toBeNull();
  expect(await questions.answer(1, 'approval.closed', 'accept', now())).toBe(false);
  expect(await questions.answerOf(1, 'approval.closed')).toBeNull();

  await questions.ask(1, 'approval.expired', now() + 1_000);
  expect(await questions.answer(1, 'approval.expired', 'accept', now() + 1_001)).toBe(false);
});

it('asks each question once: an id is never reused', async () => {
  await questions.ask(1, 'approval.once', now() + 60_000);
  await expect(questions.ask(1, 'approval.once', now() + 60_000)).rejects.toThrow();
});
