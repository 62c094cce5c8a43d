import { fmtTime, fmtUsd } from './format';

/* The API's error replies (`{error, code, message, ...}`), and how the app says them in words. */

/** An error reply of the API (`{error, code, message, ...}`), or a request that never got one. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** An error in words for the person looking: the API's message, plus what its extra fields say. */
export function errorInWords(error: unknown): string {
  if (!(error instanceof ApiFailure))
    return `Something went wrong in the dashboard: ${error instanceof Error ? error.message : String(error)}`;
  const { body } = error;
  if (error.code === 'budget_exceeded') return budgetRefusalInWords(body);
  const extra: string[] = [];
  if (error.code === 'quota_exceeded' && typeof body.used === 'number' && typeof body.limit === 'number')
    extra.push(
      `${body.used} of ${body.limit} used${typeof body.resets_at === 'string' ? `; the quota resets ${new Date(body.resets_at).toUTCString()}` : ''}.`,
    );
  if (error.code === 'competitor_limit_reached' && typeof body.max_active === 'number')
    extra.push(`At most ${body.max_active} competitors can be tracked at once: stop monitoring one first.`);
  if (error.code === 'provider_error')
    extra.push(
      body.retryable === true ? 'The data provider failed; try again later.' : 'The data provider refused the request.',
    );
  const sentence = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
  return [sentence, ...extra].join(' ');
}

/** A 402 budget_exceeded in words: which window, its limit and spend, and when it resets. */
function budgetRefusalInWords(body: Record<string, unknown>): string {
  const window = body.window === 'month' ? 'monthly' : 'daily';
  const resets = typeof body.resets_at === 'string' ? ` It resets ${fmtTime(body.resets_at)}.` : '';
  // The deployment's cap sums every site: the API names no amounts for it.
  if (body.scope === 'deployment' || typeof body.limit_usd !== 'number')
    return `Refused by the budget: the deployment's ${window} provider budget is used up, so the next provider call was not made.${resets}`;
  const spent = typeof body.spent_usd === 'number' ? `${fmtUsd(body.spent_usd)} spent` : null;
  const reserved =
    typeof body.reserved_usd === 'number' && body.reserved_usd > 0
      ? `${fmtUsd(body.reserved_usd)} reserved in flight`
      : null;
  const held = [spent, reserved].filter(Boolean).join(', ');
  return `Refused by the budget: the next provider call would pass the site's ${window} limit of ${fmtUsd(body.limit_usd)}${held ? ` (${held})` : ''}, so it was not made.${resets} “Set budget” under Spend changes the limit.`;
}
