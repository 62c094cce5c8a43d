import { KEYWORD_MAX_CHARS, LIMITS } from '@cm/contract';
import { normalizedResearchQuery, researchTerms, sectionSlug } from '@cm/core';
import {
  keyText,
  keywordUnique,
  primaryKeywordKey,
  rankPartition,
  researchQueryKey,
  researchTermPartition,
  rowIndexPartition,
  sectionPartition,
  sectionRegistryKey,
  serpKey,
  uniqueKey,
  type Key,
} from '../../packages/store/src/keys';

/*
 * A caller's text in a key, at the longest any input admits, fits DynamoDB's limits (2048 bytes of a
 * partition key, 1024 of a sort key), so no write or read fails for a key's size (issue 48 point 14).
 */

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const expectFits = (key: Key) => {
  expect(bytes(key.pk)).toBeLessThanOrEqual(2048);
  expect(bytes(key.sk)).toBeLessThanOrEqual(1024);
};
const SITE = Number.MAX_SAFE_INTEGER;

describe('keyText', () => {
  it('keeps a text that fits as it is, and gives a longer one a digest of its own', () => {
    expect(keyText('trail shoes', 11)).toBe('trail shoes');
    expect(keyText('é'.repeat(512), 1024)).toBe('é'.repeat(512));
    const hashed = keyText('é'.repeat(513), 1024);
    expect(hashed).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
    expect(keyText('é'.repeat(513), 1024)).toBe(hashed);
    expect(keyText('é'.repeat(514), 1024)).not.toBe(hashed);
  });
});

describe('keys of caller text', () => {
  it("a category's or topic's section, at the longest name in the letters that slug longest", () => {
    for (const letter of ['\u0958', 'İ', '𝒜', '中']) {
      const slug = sectionSlug(letter.repeat(LIMITS.sectionNameMax));
      expectFits(sectionRegistryKey(SITE, { kind: 'category', slug }));
      expectFits({ pk: sectionPartition(SITE, 'category', slug), sk: '' });
    }
  });

  it("a research's query (a seed and a question of 2000 characters each) and its recall terms", () => {
    const long = '中'.repeat(2000);
    expectFits(researchQueryKey(SITE, normalizedResearchQuery('url', long, long)));
    for (const term of researchTerms(`${long} ${'𝒜'.repeat(1000)}`))
      expectFits({ pk: researchTermPartition(SITE, term), sk: '' });
  });

  it('a row index value of any length (db_select takes any), and the unique values of keywords', () => {
    expectFits({ pk: rowIndexPartition(SITE, 'cm_topic_keywords', 'keyword_id', '中'.repeat(5000)), sk: '' });
    const keyword = '中'.repeat(KEYWORD_MAX_CHARS);
    expectFits(uniqueKey(SITE, 'cm_keywords', keywordUnique('WW/en', keyword)));
    expectFits(serpKey(SITE, 'WW/en', keyword));
    expectFits(primaryKeywordKey(SITE, keyword, `art_${'x'.repeat(16)}`));
    expectFits({ pk: rankPartition(SITE, 'WW/en', keyword), sk: '2026-11-29' });
  });
});
