import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  inputRequired,
  inputResponse,
  type InputRequiredResult,
  type JSONRPCMessage,
} from '@modelcontextprotocol/server';
import { isJsonObject, ToolEstimate, type McpToolName } from '@cm/contract';
import type { ElicitationAction } from '@cm/store';
import { clientCapabilitiesOf } from './client-capabilities';
import { getConfig } from '../config';
import type { Caller, Json } from './route-calls';

/*
 * Approval of a call over the site's approval threshold (docs/api.md#approval-by-elicitation), in
 * either protocol era, without the endpoint keeping a session:
 * - 2026-07-28: the call answers `input_required` with an elicitation, and the client calls again
 *   with the user's answer; the refusal's confirm token rides along in `requestState`.
 * - 2025: on the streaming endpoint, a client that said at initialize that it answers elicitations is
 *   asked mid-call, on the call's own event stream; its answer, a POST of its own that may reach
 *   another invocation, meets the waiting call in the table.
 */

/** The start of a session id given to a 2025 client that answers form elicitations; nothing of it is stored. */
const ELICITING_SESSION = 'elicit.';
/** The id of an approval question: random, so only the client asked can answer it. */
const QUESTION_ID = /^approval\.[A-Za-z0-9_-]{22}$/;
/** How often the waiting call reads whether the answer came. */
const POLL_MS = 500;
/** The key of the approval question in an `input_required` result, and of its answer in the retry. */
const APPROVAL_INPUT = 'approval';
/** The form asked: nothing to fill in, only accept, decline or cancel. */
const APPROVAL_FORM = { type: 'object' as const, properties: {} };

/** Whether elicitation capabilities mean form elicitation (`elicitation: {}` means form, as of 2025-11-25). */
function asksForms(elicitation: unknown): boolean {
  if (!isJsonObject(elicitation)) return false;
  return isJsonObject(elicitation.form) || (elicitation.form === undefined && elicitation.url === undefined);
}

/** Whether a 2025 initialize request's client answers form elicitations. */
export function declaresElicitation(message: unknown): boolean {
  if (!isJsonObject(message) || message.method !== 'initialize' || !isJsonObject(message.params)) return false;
  const capabilities = message.params.capabilities;
  return isJsonObject(capabilities) && asksForms(capabilities.elicitation);
}

/** Whether a 2026-07-28 request's client answers form elicitations (its per-request capabilities). */
export const envelopeAsksForms = (envelope: unknown): boolean => asksForms(clientCapabilitiesOf(envelope).elicitation);

/** A session id for a 2025 client that answers elicitations. */
export const elicitingSession = () => `${ELICITING_SESSION}${randomUUID()}`;

/** Whether a 2025 request comes from a client that said it answers elicitations. */
export const answersElicitation = (request: Request) =>
  request.headers.get('mcp-session-id')?.startsWith(ELICITING_SESSION) === true;

/** The client's answers to approval questions in a POST body (JSON-RPC responses); null when it holds none. */
export function approvalAnswers(body: unknown): Array<{ id: string; action: ElicitationAction }> | null {
  const messages = Array.isArray(body) ? body : [body];
  const answers = messages.flatMap((m): Array<{ id: string; action: ElicitationAction }> => {
    if (!isJsonObject(m) || m.method !== undefined || typeof m.id !== 'string' || !QUESTION_ID.test(m.id)) return [];
    const action = isJsonObject(m.result) ? m.result.action : undefined;
    // An error answer, or one that is no elicitation result, says the client could not ask: no user's decision.
    return [
      { id: m.id, action: action === 'accept' || action === 'decline' || action === 'cancel' ? action : 'error' },
    ];
  });
  return answers.length ? answers : null;
}

/** Stores the client's answers; false when one is not to a question this site asked and still awaits. */
export async function takeAnswers(caller: Caller, answers: Array<{ id: string; action: ElicitationAction }>) {
  const taken = await Promise.all(
    answers.map((a) => caller.elicitations.answer(caller.siteId, a.id, a.action, Date.now())),
  );
  return taken.every(Boolean);
}

const usd = (value: number) => `$${value.toFixed(value < 1 ? 4 : 2)}`;

/** The question put to the user: what the call would cost, against the site's threshold. */
function questionOf(tool: McpToolName, refusal: Json): string {
  const estimate = ToolEstimate.safeParse(refusal.estimate);
  if (!estimate.success) return `${tool} needs your approval before it runs. Approve it?`;
  const { total_usd, confirm_above_usd, calls, simulated } = estimate.data;
  const made = calls.map((c) => `${c.count} × ${c.provider} ${c.endpoint}`).join(', ');
  return (
    `${tool} would cost about ${usd(total_usd)} at list price${simulated ? ' (simulated: the sandbox bills nothing)' : ''}` +
    `${made ? ` (${made})` : ''}, over this site's approval threshold of ${usd(confirm_above_usd ?? 0)}. Make the call?`
  );
}

/** Sends a message on the event stream of the tool call that asks. */
export type Ask = (message: JSONRPCMessage) => Promise<void>;

/** The user's decision on an approval question; null: none (no answer in time, the client could not ask, or went). */
export type Approval = 'accept' | 'decline' | 'cancel' | null;

const decision = (action: ElicitationAction | null): Approval => (action === 'error' ? null : action);

/**
 * 2025: asks the user to approve a call the tool refused as `approval_required`, and waits for the
 * answer up to MCP_APPROVAL_WAIT_MS, or until the call is given up (`signal`: the client went). Then
 * the question is closed: an answer that came first still counts, a later one is refused, and the
 * client is told to take the question down.
 */
export async function askApproval(
  caller: Caller,
  ask: Ask,
  tool: McpToolName,
  refusal: Json,
  signal: AbortSignal,
): Promise<Approval> {
  const id = `approval.${randomBytes(16).toString('base64url')}`;
  const waitUntil = Date.now() + getConfig().mcpApprovalWaitMs;
  await caller.elicitations.ask(caller.siteId, id, waitUntil);
  await ask({
    jsonrpc: '2.0',
    id,
    method: 'elicitation/create',
    params: { mode: 'form', message: questionOf(tool, refusal), requestedSchema: APPROVAL_FORM },
  });
  while (Date.now() < waitUntil && !signal.aborted) {
    await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
    const action = await caller.elicitations.answerOf(caller.siteId, id);
    if (action) return decision(action);
  }
  const answered = await caller.elicitations.close(caller.siteId, id, Date.now());
  if (answered === null && !signal.aborted)
    await ask({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'No answer in time: the call answers approval_required with a confirm token' },
    });
  return decision(answered);
}

/**
 * 2026-07-28: the `input_required` answer to a call the tool refused as `approval_required`: the
 * question, and the refusal's confirm token as the request state the client sends back. The token is
 * what a client that does not answer elicitations is handed in the refusal itself, so carrying it
 * grants nothing a client could not do anyway; the user's answer decides whether it is used.
 */
export const approvalQuestion = (tool: McpToolName, refusal: Json & { confirm: string }): InputRequiredResult =>
  inputRequired({
    inputRequests: {
      [APPROVAL_INPUT]: inputRequired.elicit({ message: questionOf(tool, refusal), requestedSchema: APPROVAL_FORM }),
    },
    requestState: refusal.confirm,
  });

/**
 * 2026-07-28: what a retried call says of the approval asked: the confirm token and the user's
 * decision, or null when the call is not a retry of an approval question (a plain call).
 */
export function approvalAnswered(
  inputResponses: Record<string, unknown> | undefined,
  requestState: unknown,
): { confirm: string; approval: Approval } | null {
  if (typeof requestState !== 'string' || !requestState.startsWith('cfm_')) return null;
  const view = inputResponse(inputResponses, APPROVAL_INPUT);
  return { confirm: requestState, approval: view.kind === 'elicit' ? view.action : null };
}
