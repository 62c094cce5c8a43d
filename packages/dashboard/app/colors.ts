/* Competitor colours: parsing, WCAG contrast, and the outline a light colour needs to stay visible on white. */

export type Rgb = readonly [number, number, number];

export const WHITE: Rgb = [255, 255, 255];
/** WCAG 2.1 (1.4.11): graphics must reach 3:1 against what surrounds them. */
export const MIN_GRAPHIC_CONTRAST = 3;
/** The site's own colour: the app's blue, the same as its icon. */
export const SITE_COLOR = '#1d4ed8';
/** Domains that are neither the site nor tracked: quiet, so the tracked ones stand out. */
export const OTHER_COLOR = '#cbd5e1';
/** For competitors stored without a colour, in order; each reaches 3:1 on white and none is the site's blue. */
export const PALETTE = [
  '#c2410c',
  '#7c3aed',
  '#0f766e',
  '#be185d',
  '#4d7c0f',
  '#b45309',
  '#0e7490',
  '#881337',
  '#a21caf',
  '#065f46',
] as const;

/** The palette's colour for the `i`th of a list, from the start again past its end. */
export function paletteColor(i: number): string {
  const color = PALETTE[i % PALETTE.length];
  if (color === undefined) throw new Error(`No palette colour for ${i}: a list's index is a whole number from 0`);
  return color;
}

/** `#rrggbb` or `#rgb` (any case) as RGB, or null for anything else. */
export function parseHex(hex: string): Rgb | null {
  const found = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim())?.[1];
  if (!found) return null;
  const digits = found.length === 3 ? [...found].map((c) => c + c).join('') : found;
  const channel = (at: number) => parseInt(digits.slice(at, at + 2), 16);
  return [channel(0), channel(2), channel(4)];
}

export function toHex(rgb: Rgb): string {
  return `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG relative luminance, 0 (black) to 1 (white). */
export function luminance([r, g, b]: Rgb): number {
  const linear = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** WCAG contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

/** Whether a colour drawn on white is too light to see on its own and needs an outline. */
export function needsOutline(hex: string, background: Rgb = WHITE): boolean {
  const rgb = parseHex(hex);
  return rgb !== null && contrastRatio(rgb, background) < MIN_GRAPHIC_CONTRAST;
}

/**
 * The border drawn around a colour: the colour itself when it is dark enough, else the same hue
 * darkened (mixed towards black) just until it reaches 3:1 on the background, so a yellow keeps a
 * yellow look with a visible olive edge.
 */
export function outlineColor(hex: string, background: Rgb = WHITE): string {
  const rgb = parseHex(hex);
  if (!rgb) return hex;
  const [r, g, b] = rgb;
  for (let keep = 1; keep > 0; keep -= 0.05) {
    const shade: Rgb = [r * keep, g * keep, b * keep];
    if (contrastRatio(shade, background) >= MIN_GRAPHIC_CONTRAST) return toHex(shade);
  }
  return '#000000';
}

export interface DomainStyle {
  domain: string;
  /** The display_name, else the domain. */
  label: string;
  fill: string;
  border: string;
  isSite: boolean;
  isCompetitor: boolean;
}

export interface TrackedCompetitor {
  id: number;
  domain: string;
  display_name?: string | null;
  color?: string | null;
}

/**
 * How each domain is drawn and named everywhere in the app: the site in its blue, each tracked
 * competitor in its stored colour (a palette colour by id order when it has none) under its
 * display_name, any other domain quiet grey.
 */
export function domainStyles(competitors: readonly TrackedCompetitor[], siteDomain: string | null) {
  const styles = new Map<string, DomainStyle>();
  const style = (domain: string, label: string, fill: string, isSite: boolean, isCompetitor: boolean): DomainStyle => ({
    domain,
    label,
    fill,
    border: outlineColor(fill),
    isSite,
    isCompetitor,
  });
  [...competitors]
    .sort((a, b) => a.id - b.id)
    .forEach((c, i) => {
      const fill = c.color && parseHex(c.color) ? c.color.toLowerCase() : paletteColor(i);
      styles.set(c.domain, style(c.domain, c.display_name || c.domain, fill, false, true));
    });
  if (siteDomain) styles.set(siteDomain, style(siteDomain, siteDomain, SITE_COLOR, true, false));
  return {
    of: (domain: string): DomainStyle => styles.get(domain) ?? style(domain, domain, OTHER_COLOR, false, false),
    competitors: () => [...styles.values()].filter((s) => s.isCompetitor),
  };
}
export type DomainStyles = ReturnType<typeof domainStyles>;

/** A domain as a tool result names it: the site, a tracked competitor (with its stored colour, if the result carries it), or another. */
export interface ResultDomain {
  domain: string;
  is_site: boolean;
  is_competitor: boolean;
  color?: string;
}

/**
 * The styles of a face that has only a tool result (an MCP App): the same rule as domainStyles, each
 * competitor named by its domain (a result carries no display_name), and those without a colour given
 * palette colours in domain order, as a result carries no row ids.
 */
export function resultStyles(domains: readonly ResultDomain[]): DomainStyles {
  const competitors = [...new Map(domains.filter((d) => d.is_competitor).map((d) => [d.domain, d])).values()]
    .sort((a, b) => a.domain.localeCompare(b.domain))
    .map((d, id) => ({ id, domain: d.domain, color: d.color }));
  return domainStyles(competitors, domains.find((d) => d.is_site)?.domain ?? null);
}
