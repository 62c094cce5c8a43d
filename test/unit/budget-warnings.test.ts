import { warnedAlready, warningLevel, warningMark, warningPeriod } from '@cm/core';

it('reaches the levels of a budget warning at 80% and 100% of a window', () => {
  expect([0, 79.9, 80, 99.99, 100, 140].map(warningLevel)).toEqual([null, null, 80, 80, 100, 100]);
});

it("marks a warning so that a window's marks sort as its warnings happen", () => {
  expect(warningPeriod('day', '2026-11-28')).toBe('2026-11-28');
  expect(warningPeriod('month', '2026-11-28')).toBe('2026-11');
  const marks = [
    warningMark('2026-11-27', 100),
    warningMark('2026-11-28', 80),
    warningMark('2026-11-28', 100),
    warningMark('2026-11-29', 80),
  ];
  expect(marks).toEqual(['2026-11-27:100', '2026-11-28:080', '2026-11-28:100', '2026-11-29:080']);
  expect([...marks].reverse().sort()).toEqual(marks);
  // A later mark covers an earlier one of its period: 80% is not sent after 100% was.
  expect(warnedAlready('2026-11-28:100', warningMark('2026-11-28', 80))).toBe(true);
  expect(warnedAlready('2026-11-28:080', warningMark('2026-11-28', 80))).toBe(true);
  expect(warnedAlready('2026-11-28:080', warningMark('2026-11-28', 100))).toBe(false);
  expect(warnedAlready('2026-11-28:100', warningMark('2026-11-29', 80))).toBe(false);
  expect(warnedAlready(undefined, warningMark('2026-11-29', 80))).toBe(false);
});
