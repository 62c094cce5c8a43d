import { BudgetWarning } from '@cm/contract';
import { getStore, siteWebhookPost, sqsWorker } from '@cm/runtime';
import { deliverBudgetWarning } from '@cm/tools';

/** A site's budget warning, POSTed to the webhook it set (PUT /v1/budget); a POST that may succeed later has the message delivered again. */
export const handler = sqsWorker('budget-warning', BudgetWarning, async (warning, observation) => {
  const outcome = await deliverBudgetWarning({ store: getStore(), post: siteWebhookPost }, warning);
  if (outcome.delivered) observation.log.info('budget warning delivered', { id: warning.id, status: outcome.status });
  else
    observation.log.warn('budget warning dropped', { id: warning.id, reason: outcome.reason, detail: outcome.detail });
});
