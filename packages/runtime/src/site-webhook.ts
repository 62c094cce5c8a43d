import { readFileSync } from 'node:fs';
import { postWebhook } from '@cm/providers/site-webhook';
import type { PostWebhook } from '@cm/tools';
import { getConfig } from './config';

/** Sites' webhooks as this deployment may call them: public addresses, or loopback where the setting for it is on (SITE_WEBHOOK_LOOPBACK_DEV_ONLY). */
export const siteWebhookPost: PostWebhook = (url, deliveryId, payload) => {
  const { siteWebhookLoopbackDevOnly, siteWebhookCaFile } = getConfig();
  // A test's CA, read with each POST: warnings are few, and the file is the one the settings name now.
  return postWebhook(url, deliveryId, payload, {
    allowLoopback: siteWebhookLoopbackDevOnly,
    ca: siteWebhookCaFile ? readFileSync(siteWebhookCaFile) : undefined,
  });
};
