import { PALETTES } from './palette';

/**
 * The visitor pages' icon, which browsers ask for at `/favicon.ico` whether or not a page names one: an
 * answer keeps that request from failing in every reader's console. In the theme's link colour; a module
 * apart from the stylesheet, so the function that serves it carries neither the stylesheet nor its hash.
 */
export const SITE_ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="${PALETTES.light.link}"/><rect x="4" y="4" width="8" height="1.5" fill="#fff"/><rect x="4" y="7.25" width="8" height="1.5" fill="#fff"/><rect x="4" y="10.5" width="5" height="1.5" fill="#fff"/></svg>`;
