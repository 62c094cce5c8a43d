// Node 20 is the supported local runtime (Lambda runs 22); the SDK's upgrade notice is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { parseArgs } from 'node:util';
import * as z from 'zod';
import { BudgetInput } from '@cm/contract';
import { createDocumentClient, createStore } from '@cm/store';
import { setBudget } from '@cm/tools';

const USAGE = `Usage: npm run sites -- create --name NAME --domain DOMAIN [--locale US/en]
       npm run sites -- budget --site N [--daily USD|none] [--monthly USD|none]

create: creates a site and prints {"site_id":…,"api_key":"…"} on one line. The key is shown only this once.
budget: sets the site's daily and monthly spend limits (none: no limit) and prints its budget (GET /v1/budget).
Reaches DYNAMODB_ENDPOINT (default http://127.0.0.1:8000, the local stack) and table TABLE_NAME
(default content). DYNAMODB_ENDPOINT=aws uses the deployed table with your AWS credentials and AWS_REGION.`;

const CreateSite = z.object({
  name: z.string().min(1, 'is required'),
  domain: z.string().regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a host name such as example.com'),
  locale: z
    .string()
    .regex(/^(WW|[A-Z]{2})\/[a-z]{2}$/, 'must look like US/en or WW/en')
    .default('WW/en'),
});

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      domain: { type: 'string' },
      locale: { type: 'string' },
      site: { type: 'string' },
      daily: { type: 'string' },
      monthly: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (!values.help && positionals[0] === 'budget') return budget(values);
  if (values.help || positionals[0] !== 'create') {
    console.error(USAGE);
    return values.help ? 0 : 2;
  }
  const input = CreateSite.safeParse({ name: values.name, domain: values.domain?.toLowerCase(), locale: values.locale });
  if (!input.success) {
    for (const issue of input.error.issues) console.error(`--${issue.path.join('.')}: ${issue.message}`);
    console.error(USAGE);
    return 2;
  }
  const { site, api_key } = await openStore().sites.create(input.data);
  console.log(JSON.stringify({ site_id: site.site_id, api_key }));
  return 0;
}

function openStore() {
  const endpoint = process.env.DYNAMODB_ENDPOINT ?? 'http://127.0.0.1:8000';
  const db = createDocumentClient(endpoint === 'aws' ? { region: process.env.AWS_REGION } : { endpoint });
  return createStore(db, process.env.TABLE_NAME || 'content');
}

const Limit = z.union([z.literal('none').transform(() => null), z.coerce.number()]).optional();
const SetBudget = z.object({ site: z.coerce.number().int().positive('must be a site id'), daily: Limit, monthly: Limit });

/** `budget --site N --daily 5 --monthly 100`: the limits through the same checks as PUT /v1/budget. */
async function budget(values: Record<string, string | boolean | undefined>): Promise<number> {
  const args = SetBudget.safeParse(values);
  const change = args.success ? BudgetInput.safeParse({ daily_usd: args.data.daily, monthly_usd: args.data.monthly }) : null;
  if (!args.success || !change?.success) {
    for (const issue of [...(args.error?.issues ?? []), ...(change?.error?.issues ?? [])])
      console.error(`${issue.path.join('.') || 'budget'}: ${issue.message}`);
    console.error(USAGE);
    return 2;
  }
  const store = openStore();
  if (!(await store.sites.get(args.data.site))) {
    console.error(`sites: no site ${args.data.site}`);
    return 1;
  }
  console.log(JSON.stringify(await setBudget(store, args.data.site, change.data, new Date())));
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`sites: ${error.message}`);
    process.exit(1);
  },
);
