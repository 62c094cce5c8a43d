import { ApiError, CONFIRM_TTL_MS, isJsonObject, type PaidTool, type ToolEstimate } from '@cm/contract';
import type { BudgetLimits, ConfirmRefusal } from '@cm/store';
import { createHash, randomBytes } from 'node:crypto';
import type { ToolContext } from './context';
import { planTotal, type ToolPlan } from './plan';

/* The price before the call (docs/api.md#estimates-and-approval): estimates, and approval over the site's threshold. */

export type { PlanDeps, ToolPlan } from './plan';

const SANDBOX = 'sandbox';
/** Sums cost no more than this past an approved estimate before they count as grown (float noise). */
const EPSILON_USD = 1e-9;

/** A tool's estimate from its plan: totals, the budget left now, and whether the site's threshold asks for approval. */
export async function toolEstimate(
  ctx: Pick<ToolContext, 'budget'>,
  tool: PaidTool,
  plan: ToolPlan,
  limits: BudgetLimits,
): Promise<ToolEstimate> {
  const total = planTotal(plan);
  const threshold = limits.confirm_above_usd;
  const simulated = plan.data_source === SANDBOX || plan.calls.some((call) => call.provider === SANDBOX);
  return {
    estimate: true,
    tool,
    data_source: plan.data_source,
    simulated,
    calls: plan.calls,
    total_usd: total,
    free: plan.free,
    notes: [
      ...plan.notes,
      ...(simulated ? ["the sandbox: priced at the real providers' list prices; no money is billed (simulated)"] : []),
    ],
    budget: await ctx.budget.current(),
    confirm_above_usd: threshold,
    approval_required: threshold !== null && total > threshold + EPSILON_USD,
    ...(plan.monitoring ? { monitoring: plan.monitoring } : {}),
  };
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** JSON with every object's keys sorted: the same input gives the same text whatever order its fields came in. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    isJsonObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );

/** What a call's price does not depend on: whether it is an estimate, its token, and how long it waits for queued work. */
const UNPRICED_FIELDS = new Set(['estimate', 'confirm', 'wait_ms']);

/**
 * What a confirm token approves of a call: the tool and its input as parsed (defaults applied), without
 * UNPRICED_FIELDS (so a token asked for by a call that waits also confirms one run as an MCP task, which waits none).
 */
function inputHash(tool: PaidTool, input: object): string {
  const fields = Object.entries(input).filter(([field]) => !UNPRICED_FIELDS.has(field));
  return sha256(`${tool}\n${canonical(Object.fromEntries(fields))}`);
}

const REFUSALS: Record<ConfirmRefusal | 'grown', string> = {
  unknown: 'The confirm token is not one this site was given',
  used: 'The confirm token was used already (each runs one call)',
  expired: `The confirm token expired (tokens last ${CONFIRM_TTL_MS / 60_000} minutes)`,
  other_tool: 'The confirm token was given for another tool',
  other_input: 'The confirm token was given for another input of this tool (a token approves one exact input)',
  grown: 'The estimate grew past what was approved',
};

/**
 * A paid call whose estimate passes the site's threshold runs only with a confirm token given for this
 * tool and this exact input, unused and unexpired, approved for at least this estimate: using it is one
 * conditional write, so a token runs one call however many send it. Otherwise it is refused 428
 * approval_required, with the estimate and a new token (stored only as its hash).
 */
export async function requireApproval(
  ctx: Pick<ToolContext, 'siteId' | 'store'>,
  tool: PaidTool,
  input: object,
  confirm: string | undefined,
  estimate: ToolEstimate,
): Promise<void> {
  if (!estimate.approval_required) return;
  const hash = inputHash(tool, input);
  let refusal: ConfirmRefusal | 'grown' | null = null;
  if (confirm !== undefined) {
    const outcome = await ctx.store.confirms.use(ctx.siteId, sha256(confirm), tool, hash, Date.now());
    if (outcome.used && estimate.total_usd <= outcome.approvedUsd + EPSILON_USD) return;
    refusal = outcome.used ? 'grown' : outcome.refusal;
  }
  const token = `cfm_${randomBytes(24).toString('base64url')}`;
  const expiresMs = Date.now() + CONFIRM_TTL_MS;
  await ctx.store.confirms.put(ctx.siteId, sha256(token), {
    tool,
    inputHash: hash,
    approvedUsd: estimate.total_usd,
    expiresMs,
  });
  const ask = `This call's estimate, $${estimate.total_usd}, is above the site's approval threshold of $${estimate.confirm_above_usd}: send the same call again with "confirm": "${token}" to run it (one use, this exact input, within ${CONFIRM_TTL_MS / 60_000} minutes)`;
  throw new ApiError('approval_required', refusal ? `${REFUSALS[refusal]}. ${ask}` : ask, {
    estimate,
    confirm: token,
    confirm_expires_at: new Date(expiresMs).toISOString(),
    ...(refusal ? { confirm_refused: refusal } : {}),
  });
}
