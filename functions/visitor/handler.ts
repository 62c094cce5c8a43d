import { publicApi, visitorRoute } from '@cm/runtime';

/** A site's pages for its readers, by the site's id or at its own domain; any other path there is a 404 page. */
export const handler = publicApi('visitor', {
  'GET /sites/{site_id}': visitorRoute('home'),
  'GET /sites/{site_id}/articles/{slug}': visitorRoute('article'),
  'GET /sites/{site_id}/questions/{slug}': visitorRoute('question'),
  'GET /sites/{site_id}/questions': visitorRoute('questions'),
  'GET /sites/{site_id}/categories/{section}': visitorRoute('category'),
  'GET /sites/{site_id}/topics/{section}': visitorRoute('topic'),
  'GET /domains/{host}': visitorRoute('home'),
  'GET /domains/{host}/articles/{slug}': visitorRoute('article'),
  'GET /domains/{host}/questions/{slug}': visitorRoute('question'),
  'GET /domains/{host}/questions': visitorRoute('questions'),
  'GET /domains/{host}/categories/{section}': visitorRoute('category'),
  'GET /domains/{host}/topics/{section}': visitorRoute('topic'),
  'GET /domains/{host}/{proxy+}': visitorRoute('no-page'),
});
