import { ArticleInput, NotifyInput, QuestionInput, formatPath, isoDateOrTimestamp, isoTimestamp } from '@cm/contract';

describe('isoTimestamp', () => {
  it.each([
    // date only: midnight UTC
    ['2025-01-02', '2025-01-02T00:00:00.000Z'],
    ['20250102', '2025-01-02T00:00:00.000Z'],
    // no zone: read as UTC
    ['2025-01-02T03:04:05', '2025-01-02T03:04:05.000Z'],
    ['2025-01-02T03:04', '2025-01-02T03:04:00.000Z'],
    // zones
    ['2025-01-02T03:04:05Z', '2025-01-02T03:04:05.000Z'],
    ['2025-01-02T03:04:05+02:00', '2025-01-02T01:04:05.000Z'],
    ['2025-01-02T03:04:05+0200', '2025-01-02T01:04:05.000Z'],
    ['2025-01-02T03:04:05+02', '2025-01-02T01:04:05.000Z'],
    ['2025-01-02T03:04:05-05:30', '2025-01-02T08:34:05.000Z'],
    ['2025-01-02T03:04:05-00:00', '2025-01-02T03:04:05.000Z'],
    ['2025-01-02T03:04:05+23:59', '2025-01-01T03:05:05.000Z'],
    // basic format
    ['20250102T030405Z', '2025-01-02T03:04:05.000Z'],
    ['20250102T030405+0200', '2025-01-02T01:04:05.000Z'],
    ['20250102T030405-02', '2025-01-02T05:04:05.000Z'],
    ['20250102T030405', '2025-01-02T03:04:05.000Z'],
    ['20250102T0304Z', '2025-01-02T03:04:00.000Z'],
    ['20250102T030405.5Z', '2025-01-02T03:04:05.500Z'],
    // minute and hour precision
    ['2025-01-02T03:04Z', '2025-01-02T03:04:00.000Z'],
    ['2025-01-02T03:04+01:00', '2025-01-02T02:04:00.000Z'],
    ['2025-01-02T03Z', '2025-01-02T03:00:00.000Z'],
    // fractions: cut to milliseconds, `.` or `,`
    ['2025-01-02T03:04:05.1Z', '2025-01-02T03:04:05.100Z'],
    ['2025-01-02T03:04:05.123Z', '2025-01-02T03:04:05.123Z'],
    ['2025-01-02T03:04:05.123999999Z', '2025-01-02T03:04:05.123Z'],
    ['2025-01-02T03:04:05,25Z', '2025-01-02T03:04:05.250Z'],
    // lowercase t and z, a space for T (RFC 3339 §5.6)
    ['2025-01-02t03:04:05z', '2025-01-02T03:04:05.000Z'],
    ['2025-01-02 03:04:05Z', '2025-01-02T03:04:05.000Z'],
    ['2025-01-02 03:04:05', '2025-01-02T03:04:05.000Z'],
    ['2025-01-02 03:04:05.678+01:00', '2025-01-02T02:04:05.678Z'],
    // offsets that cross a day, a month, a year
    ['2025-01-01T00:30:00+01:00', '2024-12-31T23:30:00.000Z'],
    ['2023-03-01T00:30:00+01:00', '2023-02-28T23:30:00.000Z'],
    ['2024-03-01T00:30:00+01:00', '2024-02-29T23:30:00.000Z'],
    ['2025-12-31T23:30:00-01:00', '2026-01-01T00:30:00.000Z'],
    // leap days and leap seconds
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29T12:00:00Z', '2000-02-29T12:00:00.000Z'],
    ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
    ['2017-01-01T00:59:60+01:00', '2017-01-01T00:00:00.000Z'],
    // years below 100 and the far future
    ['0025-06-01', '0025-06-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
  ])('reads %j as %s', (text, expected) => {
    expect(isoTimestamp(text)).toBe(expected);
  });

  it.each([
    // not a date
    [''],
    ['yesterday'],
    ['now'],
    ['1735787045'],
    ['Thu, 02 Jan 2025 03:04:05 GMT'],
    ['2025'],
    ['2025-01'],
    ['2025-1-2'],
    ['2025-01-2'],
    ['25-01-02'],
    ['2025/01/02'],
    ['２０２５-01-02'],
    [' 2025-01-02'],
    ['2025-01-02 '],
    ['2025-01-02\n'],
    // formats mixed within the date or the time
    ['2025-0102'],
    ['202501-02'],
    ['2025-01-02T03:0405Z'],
    ['2025-01-02T0304:05Z'],
    // incomplete or malformed parts
    ['2025-01-02T'],
    ['2025-01-02Z'],
    ['2025-01-02T3:04Z'],
    ['2025-01-02T03:04:05.Z'],
    ['2025-01-02T03:04:05 Z'],
    ['2025-01-02T03:04:05+2'],
    ['2025-01-02T03:04:05+02:0'],
    ['2025-01-02T03:04:05+02:00:00'],
    ['2025-01-02T03:04:05ZZ'],
    ['2025-01-02T03:04:05Z+01:00'],
    ['2025-01-02T03:04:05GMT'],
    ['2025-01-02T03:04:05+01:00[Europe/Paris]'],
    // instants an offset pushes out of the years 0000-9999 in UTC (their text would not sort as a timestamp)
    ['9999-12-31T23:59:59-01:00'],
    ['0000-01-01T00:00:00+01:00'],
    // dates and times that do not exist
    ['2025-02-29'],
    ['2100-02-29'],
    ['2025-02-30'],
    ['2025-04-31'],
    ['2025-01-32'],
    ['2025-01-00'],
    ['2025-00-10'],
    ['2025-13-01'],
    ['20251301'],
    ['2025-01-02T24:00Z'],
    ['2025-01-02T25:00:00Z'],
    ['2025-01-02T03:60Z'],
    ['2025-01-02T03:04:61Z'],
    ['2025-01-02T03:04:60Z'], // a leap second is only ever the last second of a UTC day
    ['2025-01-02T03:04:05+24:00'],
    ['2025-01-02T03:04:05+02:60'],
  ])('refuses %j', (text) => {
    expect(isoTimestamp(text)).toBeNull();
  });
});

describe('isoDateOrTimestamp', () => {
  it.each([
    ['2025-01-02', '2025-01-02'],
    ['20250102', '2025-01-02'],
    ['2024-02-29', '2024-02-29'],
    ['2025-01-02T03:04:05+02:00', '2025-01-02T01:04:05.000Z'],
    ['20250102T030405Z', '2025-01-02T03:04:05.000Z'],
    ['2025-01-02 03:04', '2025-01-02T03:04:00.000Z'],
  ])('reads %j as %s', (text, expected) => {
    expect(isoDateOrTimestamp(text)).toBe(expected);
  });

  it.each([['2025-02-30'], ['2025-01-02T25:00Z'], ['January 2nd'], ['']])('refuses %j', (text) => {
    expect(isoDateOrTimestamp(text)).toBeNull();
  });
});

describe('dates in payloads', () => {
  const article = { slug: 'a-page', title: 'T', body: [] };
  const question = { slug: 'a-question', question: 'Q?', answer: [] };
  const source = (accessed_at: string) => ({ id: 'src-1', title: 't', url: 'https://x.example.test', accessed_at });
  const issuesOf = (result: {
    success: boolean;
    error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
  }) => (result.error?.issues ?? []).map((i) => ({ path: formatPath(i.path), message: i.message }));

  it("stores a publish's updated_at, in any form, as UTC", () => {
    expect(ArticleInput.parse({ ...article, updated_at: '20250102T030405+0200' }).updated_at).toBe(
      '2025-01-02T01:04:05.000Z',
    );
    expect(QuestionInput.parse({ ...question, updated_at: '2025-01-02' }).updated_at).toBe('2025-01-02T00:00:00.000Z');
  });

  it("keeps a source's accessed_at date as a date, and stores a date-time as UTC", () => {
    const parsed = QuestionInput.parse({
      ...question,
      sources: [source('2025-01-02'), source('20250102'), source('2025-01-02t03:04+01')],
    });
    expect(parsed.sources?.map((s) => s.accessed_at)).toEqual(['2025-01-02', '2025-01-02', '2025-01-02T02:04:00.000Z']);
  });

  it("reads a notify's updated_at as a publish's", () => {
    expect(
      NotifyInput.parse({ id: 'art_aaaaaaaaaaaaaaaa', type: 'article', updated_at: '2025-01-02 03:04:05+0200' })
        .updated_at,
    ).toBe('2025-01-02T01:04:05.000Z');
  });

  it('refuses a string that is no date, or a date that does not exist, on its field', () => {
    const message = expect.stringContaining('ISO 8601');
    expect(issuesOf(ArticleInput.safeParse({ ...article, updated_at: 'yesterday' }))).toEqual([
      { path: 'updated_at', message },
    ]);
    // A source's accessed_at is only "a date string" in the spec: another form is kept as sent (a publish warns).
    expect(QuestionInput.parse({ ...question, sources: [source('2025-02-30')] }).sources?.[0]?.accessed_at).toBe(
      '2025-02-30',
    );
    expect(issuesOf(NotifyInput.safeParse({ id: 'x', type: 'article', updated_at: '2025-01-02T25:00Z' }))).toEqual([
      { path: 'updated_at', message },
    ]);
  });
});
