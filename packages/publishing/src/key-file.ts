import { DomainFileParams } from '@cm/contract';
import { keyOfFile, tokenOfVerificationFile, verificationFileBody } from '@cm/core';
import type { SiteFileRead } from './requested-files';
import { servedSite } from './served-sites';
import { notFoundPage } from './visitor';

/**
 * A file of one segment at a site's own domain: its IndexNow key file (`/<key>.txt`, the key as plain
 * text, as IndexNow reads it to check that the site's URLs are the key owner's), its Google verification
 * file (`/google<token>.html`, docs/api/search-console.md#verification), or the site's 404 page. The site
 * is the container's cached read; one without the key or token there is read again, as its first
 * announcement, or its Search Console connection, may have just set it.
 */
export const domainRootFile: SiteFileRead = async (store, pagesBaseUrl, path) => {
  const params = DomainFileParams.safeParse(path);
  const host = params.success ? params.data.host : undefined;
  if (!params.success || host === undefined) return notFoundPage(store, pagesBaseUrl, null);
  const { file } = params.data;
  const key = keyOfFile(file);
  const token = tokenOfVerificationFile(file);
  const served = key === null && token === null ? null : await servedSite(store.sites, pagesBaseUrl, { host });
  if (served && key !== null) {
    const siteKey = served.site.indexnow_key ?? (await store.sites.get(served.site.site_id))?.indexnow_key;
    if (siteKey === key) return { body: key, contentType: 'text/plain; charset=utf-8' };
  }
  if (served && token !== null) {
    const siteToken =
      served.site.search_console_token === token
        ? token
        : (await store.sites.get(served.site.site_id))?.search_console_token;
    if (siteToken === token) return { body: verificationFileBody(token), contentType: 'text/html; charset=utf-8' };
  }
  return notFoundPage(store, pagesBaseUrl, { host });
};
