import * as z from 'zod/mini';

/* The demo site's file (demo-site.json in the data folder), as a restart reads it back. */

const DemoSite = z.object({ site_id: z.int(), api_key: z.string() });
export type DemoSite = z.infer<typeof DemoSite>;

export function decodeDemoSite(file: string, text: string): DemoSite {
  const parsed = z.safeParse(DemoSite, JSON.parse(text));
  if (!parsed.success) throw new Error(`${file} is not a demo site: {"site_id", "api_key"} expected`);
  return parsed.data;
}
