import type { BudgetWarning } from '@cm/contract';
import { UrlRefused } from '@cm/providers';
import type { Store } from '@cm/store';

/*
 * A site's budget warning, delivered (the budget-warning worker): POSTed to the webhook the site has
 * now, which may have changed or gone since the warning was queued. SQS delivers at least once and
 * the worker retries a failed POST, so a receiver may see one warning twice: its `id` says so.
 */

/** POSTs a payload to a site's webhook with a delivery id; its HTTP status, or a throw if it was not reached. */
export type PostWebhook = (url: string, deliveryId: string, payload: unknown) => Promise<{ status: number }>;

export interface WarningDelivery {
  store: Store;
  post: PostWebhook;
}

/** What became of a warning: sent, or dropped for a reason a retry would not change. */
export type WarningOutcome =
  | { delivered: true; status: number }
  | { delivered: false; reason: 'no webhook' | 'address refused' | 'rejected'; detail: string };

/** Statuses a retry may change: the receiver's own failure, a timeout, a rate limit. */
const retryable = (status: number) => status >= 500 || status === 408 || status === 429;

/**
 * Delivers `warning` to its site's webhook. A 2xx answer delivers it; an address the policy refuses, or
 * a 4xx (but 408 and 429), drops it; anything else throws, for the queue to deliver it again (at most
 * its maxReceiveCount, then its dead-letter queue).
 */
export async function deliverBudgetWarning(deps: WarningDelivery, warning: BudgetWarning): Promise<WarningOutcome> {
  const { warning_webhook_url: url } = await deps.store.budgets.limits(warning.site_id);
  if (url === null) return { delivered: false, reason: 'no webhook', detail: 'the site has no webhook now' };
  let status: number;
  try {
    ({ status } = await deps.post(url, warning.id, warning));
  } catch (error) {
    if (error instanceof UrlRefused) return { delivered: false, reason: 'address refused', detail: error.message };
    throw error;
  }
  if (status >= 200 && status < 300) return { delivered: true, status };
  if (retryable(status)) throw new Error(`the site's webhook answered ${status}: the queue delivers the warning again`);
  return { delivered: false, reason: 'rejected', detail: `the site's webhook answered ${status}` };
}
