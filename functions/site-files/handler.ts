import { feedFile, domainRootFile, robotsFile, sitemapFile, sitemapIndexFile } from '@cm/publishing';
import { iconRoute, publicApi, siteFileRoute } from '@cm/runtime';

/** A site's discovery files, by the site's id or at its own domain, and the pages' icon and IndexNow key file there. */
export const handler = publicApi('site-files', {
  'GET /sites/{site_id}/sitemap.xml': siteFileRoute(sitemapIndexFile),
  'GET /sites/{site_id}/sitemaps/{sitemap}': siteFileRoute(sitemapFile),
  'GET /sites/{site_id}/feed.xml': siteFileRoute(feedFile),
  'GET /domains/{host}/sitemap.xml': siteFileRoute(sitemapIndexFile),
  'GET /domains/{host}/sitemaps/{sitemap}': siteFileRoute(sitemapFile),
  'GET /domains/{host}/feed.xml': siteFileRoute(feedFile),
  'GET /domains/{host}/robots.txt': siteFileRoute(robotsFile),
  'GET /domains/{host}/favicon.ico': iconRoute,
  'GET /domains/{host}/{file}': siteFileRoute(domainRootFile),
});
