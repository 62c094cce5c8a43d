import { DomainFileParams } from '@cm/contract';
import { keyOfFile } from '@cm/core';
import type { SiteFileRead } from './requested-files';
import { servedSite } from './served-sites';
import { notFoundPage } from './visitor';

/**
 * A file of one segment at a site's own domain: its IndexNow key file (`/<key>.txt`, the key as plain
 * text, as IndexNow reads it to check that the site's URLs are the key owner's), or the site's 404 page.
 * The site is the container's cached read; one without a key there is read again, as its first
 * announcement may have just made it.
 */
export const indexNowKeyFile: SiteFileRead = async (store, pagesBaseUrl, path) => {
  const params = DomainFileParams.safeParse(path);
  const host = params.success ? params.data.host : undefined;
  if (!params.success || host === undefined) return notFoundPage(store, pagesBaseUrl, null);
  const key = keyOfFile(params.data.file);
  const served = key === null ? null : await servedSite(store.sites, pagesBaseUrl, { host });
  const siteKey = served && (served.site.indexnow_key ?? (await store.sites.get(served.site.site_id))?.indexnow_key);
  if (key !== null && siteKey === key) return { body: key, contentType: 'text/plain; charset=utf-8' };
  return notFoundPage(store, pagesBaseUrl, { host });
};
