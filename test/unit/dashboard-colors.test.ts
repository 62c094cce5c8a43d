import {
  contrastRatio,
  domainStyles,
  needsOutline,
  OTHER_COLOR,
  outlineColor,
  PALETTE,
  parseHex,
  resultStyles,
  SITE_COLOR,
  WHITE,
} from '../../packages/dashboard/app/colors';
import { given } from '../helpers/client';

/* The dashboard's colour rules: WCAG contrast, the outline a light competitor colour gets, and who is drawn how. */

describe('parseHex', () => {
  it('reads #rrggbb and #rgb in any case, and nothing else', () => {
    expect(parseHex('#fde047')).toEqual([253, 224, 71]);
    expect(parseHex('#F0a')).toEqual([255, 0, 170]);
    expect(parseHex('fde047')).toBeNull();
    expect(parseHex('#fde04')).toBeNull();
    expect(parseHex('red')).toBeNull();
  });
});

describe('contrastRatio', () => {
  it('is 21 for black on white, 1 for a colour on itself, and symmetric', () => {
    expect(contrastRatio([0, 0, 0], WHITE)).toBeCloseTo(21, 5);
    expect(contrastRatio(WHITE, [0, 0, 0])).toBeCloseTo(21, 5);
    expect(contrastRatio([220, 38, 38], [220, 38, 38])).toBe(1);
    // WCAG's reference: #767676 on white is 4.54:1.
    expect(contrastRatio(given(parseHex('#767676'), 'the parseHex'), WHITE)).toBeCloseTo(4.54, 2);
  });
});

describe('outlines for light colours', () => {
  it('outlines a colour under 3:1 against white, and not one at or above it', () => {
    expect(needsOutline('#fde047')).toBe(true); // yellow, about 1.3:1
    expect(needsOutline('#ffffff')).toBe(true);
    expect(needsOutline('#dc2626')).toBe(false); // red, about 4.8:1
    expect(needsOutline('#1d4ed8')).toBe(false);
  });

  it('darkens a light colour just enough to reach 3:1, and keeps a dark one as it is', () => {
    const outline = outlineColor('#fde047');
    expect(outline).not.toBe('#fde047');
    expect(contrastRatio(given(parseHex(outline), 'the parseHex'), WHITE)).toBeGreaterThanOrEqual(3);
    // Same hue (channels scaled together), not just black.
    const [r, g, b] = given(parseHex(outline), 'the parseHex');
    expect(r / 253).toBeCloseTo(g / 224, 1);
    expect(r / 253).toBeCloseTo(b / 71, 1);
    expect(contrastRatio(given(parseHex(outline), 'the parseHex'), WHITE)).toBeLessThan(4.5);
    expect(outlineColor('#dc2626')).toBe('#dc2626');
    expect(outlineColor('#ffffff')).not.toBe('#ffffff');
  });

  it('gives competitors without a colour palette colours that need no outline and are not the site’s', () => {
    for (const color of PALETTE) expect([color, needsOutline(color)]).toEqual([color, false]);
    expect(PALETTE).not.toContain(SITE_COLOR);
    expect(new Set(PALETTE).size).toBe(PALETTE.length);
  });
});

describe('domainStyles', () => {
  const styles = domainStyles(
    [
      { id: 2, domain: 'b.com', display_name: null, color: null },
      { id: 1, domain: 'a.com', display_name: 'Alpha', color: '#FDE047' },
      { id: 3, domain: 'c.com', display_name: '', color: null },
    ],
    'site.com',
  );

  it('names a competitor by display_name, else its domain, in its colour, else a palette colour by id order', () => {
    expect(styles.of('a.com')).toEqual({
      domain: 'a.com',
      label: 'Alpha',
      fill: '#fde047',
      border: outlineColor('#fde047'),
      isSite: false,
      isCompetitor: true,
    });
    expect(styles.of('b.com')).toMatchObject({ label: 'b.com', fill: PALETTE[1], border: PALETTE[1] });
    expect(styles.of('c.com')).toMatchObject({ label: 'c.com', fill: PALETTE[2] });
    expect(styles.competitors().map((s) => s.domain)).toEqual(['a.com', 'b.com', 'c.com']);
  });

  it('draws the site in its own colour and any other domain quiet', () => {
    expect(styles.of('site.com')).toMatchObject({ fill: SITE_COLOR, isSite: true, isCompetitor: false });
    expect(styles.of('elsewhere.org')).toMatchObject({
      label: 'elsewhere.org',
      fill: OTHER_COLOR,
      border: outlineColor(OTHER_COLOR),
      isSite: false,
      isCompetitor: false,
    });
  });
});

describe('resultStyles (a face with only a tool result: an MCP App)', () => {
  // As serp_landscape's sov.domains lists them: by share of voice, a competitor's colour when it has one.
  const styles = resultStyles([
    { domain: 'other.org', is_site: false, is_competitor: false },
    { domain: 'zeta.com', is_site: false, is_competitor: true },
    { domain: 'site.com', is_site: true, is_competitor: false },
    { domain: 'beta.com', is_site: false, is_competitor: true, color: '#DC2626' },
    { domain: 'alpha.com', is_site: false, is_competitor: true },
  ]);

  it('draws a competitor in the colour the result carries, else a palette colour by its place in domain order', () => {
    expect(styles.of('beta.com')).toMatchObject({ label: 'beta.com', fill: '#dc2626', isCompetitor: true });
    expect(styles.of('alpha.com')).toMatchObject({ fill: PALETTE[0], isCompetitor: true });
    expect(styles.of('zeta.com')).toMatchObject({ fill: PALETTE[2], isCompetitor: true });
  });

  it('draws the site in its colour and the others quiet, as the dashboard does', () => {
    expect(styles.of('site.com')).toMatchObject({ fill: SITE_COLOR, isSite: true });
    expect(styles.of('other.org')).toMatchObject({ fill: OTHER_COLOR, isCompetitor: false });
  });
});
