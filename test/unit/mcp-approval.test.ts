import { approvalAnswers, declaresElicitation } from '../../packages/runtime/src/mcp/approval';

/* What a client declares at initialize, and what its answers to approval questions say. */

const initialize = (capabilities: unknown) => ({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'c', version: '1' } },
});

it('counts a client as answering form elicitations when it declares elicitation {} or {form}', () => {
  expect(declaresElicitation(initialize({ elicitation: {} }))).toBe(true);
  expect(declaresElicitation(initialize({ elicitation: { form: {} } }))).toBe(true);
  expect(declaresElicitation(initialize({ elicitation: { form: {}, url: {} } }))).toBe(true);
  expect(declaresElicitation(initialize({ elicitation: { url: {} } }))).toBe(false);
  expect(declaresElicitation(initialize({}))).toBe(false);
  expect(declaresElicitation({ ...initialize({ elicitation: {} }), method: 'tools/list' })).toBe(false);
});

it('reads answers to approval questions only, and an error answer as the client unable to ask', () => {
  const id = 'approval.AAAAAAAAAAAAAAAAAAAAAA';
  expect(approvalAnswers({ jsonrpc: '2.0', id, result: { action: 'accept', content: {} } })).toEqual([
    { id, action: 'accept' },
  ]);
  expect(approvalAnswers([{ jsonrpc: '2.0', id, result: { action: 'decline' } }])).toEqual([{ id, action: 'decline' }]);
  expect(approvalAnswers({ jsonrpc: '2.0', id, error: { code: -32602, message: 'no forms' } })).toEqual([
    { id, action: 'error' },
  ]);
  expect(approvalAnswers({ jsonrpc: '2.0', id, result: { action: 'maybe' } })).toEqual([{ id, action: 'error' }]);
  // Not an approval question's id, or a request: not an answer.
  expect(approvalAnswers({ jsonrpc: '2.0', id: 3, result: { action: 'accept' } })).toBeNull();
  expect(approvalAnswers({ jsonrpc: '2.0', id: 'approval.short', result: { action: 'accept' } })).toBeNull();
  expect(approvalAnswers({ jsonrpc: '2.0', id, method: 'tools/list' })).toBeNull();
});
