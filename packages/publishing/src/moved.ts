import { escapeHtml } from '@cm/core';

/** A visitor path that moved: 301 to `location`, an absolute URL at the site's root, with a link to it for a reader whose client does not follow. */
export interface MovedPage {
  status: 301;
  location: string;
  html: string;
}

export const movedPage = (location: string): MovedPage => ({
  status: 301,
  location,
  html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Moved</title></head><body><p><a href="${escapeHtml(location)}">${escapeHtml(location)}</a></p></body></html>`,
});
