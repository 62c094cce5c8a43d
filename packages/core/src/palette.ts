/* The visitor pages' colours: the theme's stylesheet and the site's icon both paint with them. */

/**
 * The colours, light and dark. Text colours (`fg`, `muted`, `link`) meet WCAG AA (4.5:1) on every
 * background (`bg`, `card`, `info`, `warning`, `tip`), and `focus` 3:1 on `bg` and `card`: a test checks.
 */
export const PALETTES = {
  light: {
    bg: '#ffffff',
    fg: '#1f2328',
    muted: '#59636e',
    link: '#0550ae',
    line: '#d1d9e0',
    card: '#f6f8fa',
    focus: '#0969da',
    info: '#ddf4ff',
    'info-edge': '#0969da',
    warning: '#fff8c5',
    'warning-edge': '#9a6700',
    tip: '#dafbe1',
    'tip-edge': '#1a7f37',
  },
  dark: {
    bg: '#0d1117',
    fg: '#e6edf3',
    muted: '#9198a1',
    link: '#4493f8',
    line: '#3d444d',
    card: '#151b23',
    focus: '#4493f8',
    info: '#0b2148',
    'info-edge': '#4493f8',
    warning: '#2e2600',
    'warning-edge': '#d29922',
    tip: '#0b2916',
    'tip-edge': '#3fb950',
  },
} as const;
