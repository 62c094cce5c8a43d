import { createHash } from 'node:crypto';
import { PALETTES } from './palette';

/*
 * The visitor pages' one stylesheet, inline in every page and allowed by its hash in the CSP: nothing is
 * loaded for it (no file, no font). System fonts, a measure of about 70 characters, one column from 320 px
 * up, dark mode by `prefers-color-scheme`, print styles, a visible focus ring.
 */

const variables = (palette: Record<string, string>): string =>
  Object.entries(palette)
    .map(([name, value]) => `--${name}:${value}`)
    .join(';');

const FONT = 'system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif';
const MONO = 'ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace';

/**
 * The cover's box: a publish sends a cover as a URL alone, so its size is never known. Every cover shows
 * in a box of this shape (1200×630, the shape of a link preview's image, which the cover also is), as wide
 * as the column, and fills it (cropped, never stretched): the page keeps its layout whether and whenever
 * the image loads.
 */
export const COVER_BOX = { width: 1200, height: 630 } as const;

export const THEME_CSS = [
  `:root{color-scheme:light dark;${variables(PALETTES.light)}}`,
  `@media (prefers-color-scheme:dark){:root{${variables(PALETTES.dark)}}}`,
  '*,*::before,*::after{box-sizing:border-box}',
  'html{-webkit-text-size-adjust:100%;text-size-adjust:100%}',
  `body{margin:0;background:var(--bg);color:var(--fg);font:1.0625rem/1.65 ${FONT};overflow-wrap:break-word}`,
  // A 35rem column: about 70 characters a line of body text, whatever the element's own font size.
  '.wrap{max-width:37.5rem;margin:0 auto;padding:0 1.25rem}',
  'a{color:var(--link);text-underline-offset:.15em}a:hover{text-decoration-thickness:2px}',
  ':focus-visible{outline:3px solid var(--focus);outline-offset:2px;border-radius:2px}',
  '.skip{position:absolute;left:-9999px;top:0}.skip:focus{left:1rem;top:.75rem;background:var(--bg);padding:.5rem 1rem;z-index:1}',
  'header.site{border-bottom:1px solid var(--line)}header.site .wrap{display:flex;align-items:center;justify-content:space-between;gap:1rem;min-height:3.5rem}',
  '.site-nav a{display:inline-block;padding:.5rem 0}',
  '.site-name{font-weight:700;font-size:1.125rem;color:var(--fg);text-decoration:none}.site-name:hover{text-decoration:underline}',
  '.crumbs ol{list-style:none;margin:1.25rem 0 0;padding:0;font-size:.9375rem;color:var(--muted)}',
  '.crumbs li{display:inline;margin:0}.crumbs li+li::before{content:"\\203A";margin:0 .5rem}.crumbs [aria-current]{color:var(--fg)}',
  'main{display:block;padding-bottom:3rem}',
  'h1,h2,h3,h4,h5,h6{line-height:1.25;text-wrap:balance}',
  'h1{font-size:clamp(1.75rem,1.25rem + 2.2vw,2.5rem);margin:1rem 0 .75rem}',
  'h2{font-size:1.5rem;margin:2.25rem 0 .75rem}h3{font-size:1.25rem;margin:1.75rem 0 .5rem}h4,h5,h6{font-size:1.0625rem;margin:1.5rem 0 .5rem}',
  'p,ul,ol,dl,blockquote,figure,pre,.table,.callout{margin:0 0 1.25rem}',
  'ul,ol{padding-left:1.5rem}li+li,li>ul,li>ol{margin-top:.25rem}',
  '.meta{color:var(--muted);font-size:.9375rem}',
  `img{max-width:100%;height:auto}.cover{display:block;width:100%;aspect-ratio:${COVER_BOX.width}/${COVER_BOX.height};object-fit:cover;border-radius:.5rem;margin:0 0 1.5rem}`,
  'figcaption{color:var(--muted);font-size:.9375rem;margin-top:.5rem}',
  'blockquote{padding:.25rem 0 .25rem 1.25rem;border-left:4px solid var(--line);font-size:1.125rem}blockquote p{margin:0 0 .5rem}',
  'blockquote footer{color:var(--muted);font-size:.9375rem}',
  '.stat-bar{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.75rem}',
  '.stat{display:flex;flex-direction:column-reverse;justify-content:flex-end;background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:.875rem 1rem}',
  '.stat dd{margin:0;font-size:1.75rem;font-weight:700;line-height:1.2}.stat dt{color:var(--muted);font-size:.9375rem}',
  '.callout{background:var(--info);border-left:4px solid var(--info-edge);border-radius:.25rem;padding:.875rem 1.25rem}.callout p{margin:0}',
  '.callout-warning{background:var(--warning);border-color:var(--warning-edge)}.callout-tip{background:var(--tip);border-color:var(--tip-edge)}',
  '.table{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.9375rem}',
  'th,td{border-bottom:1px solid var(--line);padding:.5rem .75rem;text-align:left;vertical-align:top}th{font-weight:600}',
  `code{font-family:${MONO};font-size:.9em;background:var(--card);padding:.1em .3em;border-radius:.25rem}`,
  'pre{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:1rem;overflow-x:auto;line-height:1.5}',
  'pre code{background:none;padding:0;font-size:.875rem}.code figcaption{margin:0 0 .25rem}',
  'sup.citation{font-size:.75em;line-height:0}',
  '.part{border-top:1px solid var(--line);margin-top:2rem}.part>h2{margin-top:1.25rem}',
  '.summary p{font-size:1.125rem}.sources ol{font-size:.9375rem}.accessed{color:var(--muted)}',
  '.community-answer{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:.25rem 1.25rem .5rem;margin:0 0 1rem}',
  '.community-answer>h3{margin:.75rem 0 0;font-size:1rem}',
  '.cards{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:.75rem}.cards li{margin:0}',
  '.card{display:block;height:100%;background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:.875rem 1rem;color:var(--fg);text-decoration:none}',
  '.card:hover{border-color:var(--link)}.card-title{color:var(--link);font-weight:600}',
  '.card-kind{display:block;color:var(--muted);font-size:.8125rem;text-transform:uppercase;letter-spacing:.04em}',
  '.intro{color:var(--muted)}.listing{list-style:none;padding:0;margin:1.5rem 0 0}',
  '.entry{margin:0;padding:1rem 0;border-top:1px solid var(--line)}.entry .meta{margin:0}',
  '.entry h2{font-size:1.25rem;margin:.25rem 0 .375rem}.entry h2 a{text-decoration:none}.entry h2 a:hover{text-decoration:underline}.entry p{margin:0}',
  '.pager{display:flex;gap:1.5rem;border-top:1px solid var(--line);padding-top:1.25rem}.pager a{display:inline-block;padding:.5rem 0}',
  'footer.site{border-top:1px solid var(--line);color:var(--muted);font-size:.9375rem;padding:1.25rem 0 2rem}',
  `@media print{:root{${variables(PALETTES.light)}}body{font-size:11pt}.skip,header.site,.crumbs,.related,.pager,footer.site{display:none}` +
    '.wrap{max-width:none;padding:0}a{color:inherit}article a[href^="http"]::after{content:" (" attr(href) ")";font-size:.85em}' +
    'pre,blockquote,.stat,figure,table,.callout,.community-answer{break-inside:avoid}h2,h3{break-after:avoid}}',
].join('\n');

/** The CSP source that allows the inline stylesheet and nothing else: its SHA-256, computed from it here only. */
export const THEME_STYLE_SOURCE = `'sha256-${createHash('sha256').update(THEME_CSS).digest('base64')}'`;
