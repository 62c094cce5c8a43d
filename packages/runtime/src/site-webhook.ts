import { readFileSync } from 'node:fs';
import { postWebhook } from '@cm/providers/site-webhook';
import type { PostWebhook } from '@cm/tools';
import { getConfig } from './config';

let ca: { file: string; pem: Buffer } | undefined;

/** Sites' webhooks as this deployment may call them: public addresses, or loopback where the setting for it is on (SITE_WEBHOOK_LOOPBACK_DEV_ONLY). */
export const siteWebhookPost: PostWebhook = (url, deliveryId, payload) => {
  const { siteWebhookLoopbackDevOnly, siteWebhookCaFile } = getConfig();
  if (siteWebhookCaFile && ca?.file !== siteWebhookCaFile)
    ca = { file: siteWebhookCaFile, pem: readFileSync(siteWebhookCaFile) };
  return postWebhook(url, deliveryId, payload, {
    allowLoopback: siteWebhookLoopbackDevOnly,
    ca: siteWebhookCaFile ? ca?.pem : undefined,
  });
};
