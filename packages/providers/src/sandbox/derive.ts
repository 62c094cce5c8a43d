import { Bug } from '@cm/core';
import { createHash } from 'node:crypto';

/** A number in [0, 1) derived from the text and a salt: the same inputs always give the same number. */
export function unit(text: string, salt: string): number {
  const digest = createHash('sha256').update(`${salt}\n${text}`).digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

/** An integer in [min, max] derived from the text and a salt. */
export const between = (text: string, salt: string, min: number, max: number): number =>
  min + Math.floor(unit(text, salt) * (max - min + 1));

/** Rounds to two significant digits, as keyword tools report volumes. */
export function twoSignificant(value: number): number {
  if (value < 100) return Math.max(10, Math.round(value / 10) * 10);
  const magnitude = 10 ** (Math.floor(Math.log10(value)) - 1);
  return Math.round(value / magnitude) * magnitude;
}

/** The item at `index`, counting on from the start past the end (the lists it is used on are never empty). */
export function cycled<T>(items: readonly T[], index: number): T {
  const item = items[index % items.length];
  if (item === undefined) throw new Bug('no item to pick from an empty list');
  return item;
}

/** The items in an order derived from the seed. */
export const shuffled = <T>(items: readonly T[], seed: string): T[] =>
  items
    .map((item, i) => ({ item, key: unit(seed, `shuffle-${i}`) }))
    .sort((a, b) => a.key - b.key)
    .map((entry) => entry.item);
