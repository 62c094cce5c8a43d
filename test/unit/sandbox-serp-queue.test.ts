import { Meter, SandboxKeywordData, SandboxSerpQueue } from '@cm/providers';

/* The sandbox's standard queue: public tasks, and each site placed in their SERP as it sees it. */

const queue = new SandboxSerpQueue();
const site = { siteDomain: 'site.example.com', competitors: ['rival.example.com'] };

it("answers a task with the public SERP (no site in it, nothing of a site's in its id), the live pull's", async () => {
  const [posted] = await queue.post(
    [{ tag: 't', keyword: 'trail shoes', locale: 'US/en', device: 'desktop', depth: 20 }],
    new Meter(),
  );
  expect(posted).toMatchObject({ tag: 't', id: expect.stringMatching(/^sandbox-/) });
  const answer = await queue.collect(posted && 'id' in posted ? posted.id : '', 20);
  const live = await new SandboxKeywordData().serpOrganic('trail shoes', 'US/en', 20, new Meter());
  expect(answer).toEqual({
    status: 'ready',
    items: live,
    aiOverview: expect.objectContaining({ shown: expect.any(Boolean) }),
  });
});

it('places a site in a SERP on its check day as the dated checks move it, and as a live pull without a day', async () => {
  const keywords = Array.from({ length: 30 }, (_v, i) => `trail shoes ${i}`);
  const data = new SandboxKeywordData();
  const placed = await Promise.all(
    keywords.map(async (keyword) => {
      const items = await data.serpOrganic(keyword, 'US/en', 20, new Meter());
      return {
        live: data.placeTracked(items, keyword, 'US/en', site),
        undated: queue.placeTracked(items, keyword, 'US/en', site),
        day1: queue.placeTracked(items, keyword, 'US/en', { ...site, day: '2031-06-02' }),
        day2: queue.placeTracked(items, keyword, 'US/en', { ...site, day: '2031-06-20' }),
      };
    }),
  );
  for (const { live, undated } of placed) expect(undated).toEqual(live);
  // The dated checks move the site from day to day, on some keywords at least.
  expect(placed.some(({ day1, day2 }) => JSON.stringify(day1) !== JSON.stringify(day2))).toBe(true);
});

it('answers a mobile task with a SERP of its own, the same each time; a site sits a few places from its desktop position', async () => {
  const task = (device: 'desktop' | 'mobile') => ({
    tag: device,
    keyword: 'trail shoes',
    locale: 'US/en',
    device,
    depth: 20,
  });
  const ids = (await queue.post([task('desktop'), task('mobile'), task('mobile')], new Meter())).map((p) =>
    'id' in p ? p.id : '',
  );
  expect(new Set(ids).size).toBe(2);
  const [desktop, mobile, again] = await Promise.all(ids.map((id) => queue.collect(id, 20)));
  expect(mobile).toEqual(again);
  expect(mobile).not.toEqual(desktop);
  const items = desktop?.status === 'ready' ? desktop.items : [];
  const positions = Array.from({ length: 30 }, (_v, i) => `trail shoes ${i}`).map((keyword) => {
    const on = (device: 'desktop' | 'mobile') =>
      queue
        .placeTracked(items, keyword, 'US/en', { ...site, day: '2031-06-02', device })
        .find((item) => item.domain === site.siteDomain)?.position;
    return { desktop: on('desktop'), mobile: on('mobile') };
  });
  const both = positions.flatMap(({ desktop: d, mobile: m }) => (d !== undefined && m !== undefined ? [[d, m]] : []));
  expect(both.some(([d, m]) => d !== m)).toBe(true);
});

it('fails a task whose id it never gave, for good', async () => {
  expect(await queue.collect('sandbox-not-json', 20)).toEqual({
    status: 'failed',
    error: expect.stringContaining('no sandbox task'),
  });
});
