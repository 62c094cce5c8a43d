import { parseArgs } from 'node:util';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import * as z from 'zod/mini';
import { API_KEY_PREFIX, BudgetInput, DEFAULT_BUDGETS } from '@cm/contract';
import { createDocumentClient, createStore, type Store } from '@cm/store';
import { relistSite } from '@cm/publishing';
import { createSite, setBudget, type NewSiteBudget } from '@cm/tools';
import { domainEdge, serveDomain, stopServingDomain, type DomainEdge } from './serve-domain';

const USAGE = `Usage: npm run sites -- create --name NAME --domain DOMAIN [--locale US/en] [--daily USD|none] [--monthly USD|none]
       npm run sites -- rotate-key --site ID [--grace-seconds S]
       npm run sites -- revoke-key --site ID | --key KEY
       npm run sites -- budget --site ID [--daily USD|none] [--monthly USD|none] [--confirm-above USD|none] [--webhook URL|none]
       npm run sites -- serve-domain --site ID [--domain DOMAIN] [--certificate-arn ARN] | --stop
       npm run sites -- relist --site ID

create      Creates a site and prints {"site_id":…,"api_key":"…","budget":…,"monitoring":…} on one line. The key
            is shown only this once. Its budget: --daily and --monthly, by default $${DEFAULT_BUDGETS.siteDailyUsd} a day and
            $${DEFAULT_BUDGETS.siteMonthlyUsd} a month (none: no limit; budget changes it later); monitoring: what
            monitoring its own domain daily costs a month at list prices.
rotate-key  Issues the site a new key and prints it the same way; every older key of the site keeps working
            for --grace-seconds (default 0: it stops now), then stops.
revoke-key  --site: every key of the site stops (rotate-key gives it a new one); --key: that one key stops.
            Prints {"revoked":…}.
budget      Sets the site's daily and monthly spend limits and its approval threshold (paid calls estimated
            above it answer approval_required; none: no limit, no threshold), and the webhook its budget
            warnings are POSTed to (none: no warnings); prints its budget (GET /v1/budget).
serve-domain Serves the site's pages at its own domain (--domain, else the one it was created with): its
            URLs, canonical links and sitemaps name https://DOMAIN/…; a domain is one site's at most.
            Deployed, it makes the site's CloudFront distribution tenant and prints the DNS step
            ({"tenant":{"dns":…,"certificate":…},"next":…}); the site moves to the domain when the
            certificate is issued: run it again (docs/operations.md#a-sites-own-domain). --stop: its pages
            are at the deployment's address again and its tenant is deleted. Prints {"site_id":…,"served_domain":…}.
            --certificate-arn: a domain of the deprecated -c siteDomains moves to its tenant with that
            (siteCertificateArn's) certificate, without going offline (docs/operations.md#moving-the-domains-of-sitedomains-to-tenants).
relist      Puts the site's pages published before the listing pages existed into them (home, sections,
            sitemaps, feed), once after the upgrade; pages listed already are left as they are. Prints
            {"site_id":…,"pages":…,"relisted":…}.

Warm functions notice a revoked key within 5 s. Reaches DYNAMODB_ENDPOINT (default the local stack's,
http://127.0.0.1:DYNAMODB_PORT, port 8000 unless set) and table TABLE_NAME (default content). DYNAMODB_ENDPOINT=aws uses the deployed table
with your AWS credentials and AWS_REGION; serve-domain then takes SITE_DOMAINS_DISTRIBUTION_ID and
SITE_DOMAINS_CONNECTION_GROUP_ID (the stack's outputs).`;

const HostName = z
  .string()
  .check(
    z.regex(
      /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
      'must be a host name such as example.com',
    ),
  );

const CreateSite = z.object({
  name: z.string().check(z.minLength(1, 'is required')),
  domain: HostName,
  locale: z._default(z.string().check(z.regex(/^(WW|[A-Z]{2})\/[a-z]{2}$/, 'must look like US/en or WW/en')), 'WW/en'),
});

const SiteId = z.coerce
  .number({ error: 'must be a site id' })
  .check(z.int('must be a site id'), z.positive('must be a site id'));

const RotateKey = z.object({
  site: SiteId,
  'grace-seconds': z._default(
    z.coerce.number().check(z.int('must be whole seconds'), z.minimum(0, 'must be 0 or more')),
    0,
  ),
});

const RevokeKey = z
  .object({
    site: z.optional(SiteId),
    key: z.optional(z.string().check(z.startsWith(API_KEY_PREFIX, 'must be an API key'))),
  })
  .check(
    z.refine(
      (input) => (input.site === undefined) !== (input.key === undefined),
      'give --site ID or --key KEY (one of them)',
    ),
  );

const ServeDomain = z.object({
  site: SiteId,
  domain: z.optional(HostName),
  stop: z.optional(z.boolean()),
  // CloudFront reads a tenant's certificate in us-east-1 only.
  'certificate-arn': z.optional(
    z
      .string()
      .check(
        z.regex(/^arn:aws:acm:us-east-1:\d{12}:certificate\/[\w-]+$/, 'must be an ACM certificate ARN in us-east-1'),
      ),
  ),
});

/** An option that takes a value, or `none` (null): no limit, no threshold, no webhook. */
const orNone = <T extends z.ZodMiniType>(value: T) =>
  z.optional(
    z.union([
      z.pipe(
        z.literal('none'),
        z.transform(() => null),
      ),
      value,
    ]),
  );
const Limit = orNone(z.coerce.number());
const Webhook = orNone(z.string());
const SiteLimits = z.object({ daily: Limit, monthly: Limit });
const SetBudget = z.object({ site: SiteId, daily: Limit, monthly: Limit, 'confirm-above': Limit, webhook: Webhook });

/** Where the command's lines go: stdout and stderr for `npm run sites`. */
export interface SitesOutput {
  log(line: string): void;
  error(line: string): void;
}

/** `schema`'s reading of the options, or null after saying what is wrong (exit code 2). */
function parsed<S extends z.ZodMiniType>(out: SitesOutput, schema: S, values: unknown): z.output<S> | null {
  const input = schema.safeParse(values);
  if (input.success) return input.data;
  for (const issue of input.error.issues)
    out.error(issue.path.length ? `--${issue.path.join('.')}: ${issue.message}` : issue.message);
  out.error(USAGE);
  return null;
}

/** A new site's limits as --daily and --monthly give them, through the same checks as PUT /v1/budget; null after saying what is wrong. */
function newSiteBudget(out: SitesOutput, daily: string | undefined, monthly: string | undefined): NewSiteBudget | null {
  const input = parsed(out, SiteLimits, { daily, monthly });
  if (!input) return null;
  const given = { daily_usd: input.daily, monthly_usd: input.monthly };
  if (given.daily_usd === undefined && given.monthly_usd === undefined) return {};
  const change = parsed(out, BudgetInput, given);
  return change && { daily_usd: change.daily_usd, monthly_usd: change.monthly_usd };
}

function openClient(env: NodeJS.ProcessEnv) {
  // The local stack's DynamoDB, on the port `npm start` was given (DYNAMODB_PORT), unless an endpoint is named.
  const endpoint = env.DYNAMODB_ENDPOINT || `http://127.0.0.1:${env.DYNAMODB_PORT || 8000}`;
  return createDocumentClient(endpoint === 'aws' ? { region: env.AWS_REGION } : { endpoint });
}

/** The command line's options; throws on an unknown or ambiguous one. */
function options(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      domain: { type: 'string' },
      locale: { type: 'string' },
      site: { type: 'string' },
      key: { type: 'string' },
      'grace-seconds': { type: 'string' },
      daily: { type: 'string' },
      monthly: { type: 'string' },
      'confirm-above': { type: 'string' },
      webhook: { type: 'string' },
      stop: { type: 'boolean' },
      'certificate-arn': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
}

async function run(
  argv: string[],
  out: SitesOutput,
  openStore: () => Store,
  openEdge: () => DomainEdge | undefined,
): Promise<number> {
  let args;
  try {
    args = options(argv);
  } catch (error) {
    out.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const { positionals, values } = args;
  const command = positionals[0];
  if (
    values.help ||
    !['create', 'rotate-key', 'revoke-key', 'budget', 'serve-domain', 'relist'].includes(command ?? '')
  ) {
    out.error(USAGE);
    return values.help ? 0 : 2;
  }
  if (command === 'create') {
    const input = parsed(out, CreateSite, {
      name: values.name,
      domain: values.domain?.toLowerCase(),
      locale: values.locale,
    });
    const budget = input && newSiteBudget(out, values.daily, values.monthly);
    if (!input || !budget) return 2;
    const created = await createSite(
      openStore(),
      { name: input.name, domain: input.domain, locale: input.locale },
      budget,
      new Date(),
    );
    out.log(
      JSON.stringify({
        site_id: created.site.site_id,
        api_key: created.api_key,
        budget: created.budget,
        monitoring: created.monitoring,
      }),
    );
    return 0;
  }
  if (command === 'rotate-key') {
    const input = parsed(out, RotateKey, { site: values.site, 'grace-seconds': values['grace-seconds'] });
    if (!input) return 2;
    const apiKey = await openStore().sites.rotateKeys(input.site, input['grace-seconds']);
    if (apiKey === null) throw new Error(`there is no site ${input.site}`);
    out.log(JSON.stringify({ site_id: input.site, api_key: apiKey }));
    return 0;
  }
  if (command === 'budget') {
    // The limits go through the same checks as PUT /v1/budget.
    const input = parsed(out, SetBudget, {
      site: values.site,
      daily: values.daily,
      monthly: values.monthly,
      'confirm-above': values['confirm-above'],
      webhook: values.webhook,
    });
    const change =
      input &&
      parsed(out, BudgetInput, {
        daily_usd: input.daily,
        monthly_usd: input.monthly,
        confirm_above_usd: input['confirm-above'],
        warning_webhook_url: input.webhook,
      });
    if (!input || !change) return 2;
    const store = openStore();
    if (!(await store.sites.get(input.site))) throw new Error(`there is no site ${input.site}`);
    out.log(JSON.stringify(await setBudget(store, input.site, change, new Date())));
    return 0;
  }
  if (command === 'relist') {
    const input = parsed(out, z.object({ site: SiteId }), { site: values.site });
    if (!input) return 2;
    const store = openStore();
    if (!(await store.sites.get(input.site))) throw new Error(`there is no site ${input.site}`);
    out.log(JSON.stringify({ site_id: input.site, ...(await relistSite(store, input.site)) }));
    return 0;
  }
  if (command === 'serve-domain') {
    const input = parsed(out, ServeDomain, {
      site: values.site,
      domain: values.domain?.toLowerCase(),
      stop: values.stop,
      'certificate-arn': values['certificate-arn'],
    });
    if (!input) return 2;
    const store = openStore();
    const site = await store.sites.get(input.site);
    if (!site) throw new Error(`there is no site ${input.site}`);
    const edge = openEdge();
    out.log(
      JSON.stringify(
        input.stop
          ? await stopServingDomain(store, edge, input.site)
          : await serveDomain(store, edge, input.site, input.domain ?? site.domain, input['certificate-arn']),
      ),
    );
    return 0;
  }
  const input = parsed(out, RevokeKey, { site: values.site, key: values.key });
  if (!input) return 2;
  if (input.site !== undefined) {
    if (!(await openStore().sites.revokeKeys(input.site))) throw new Error(`there is no site ${input.site}`);
    out.log(JSON.stringify({ revoked: 'site', site_id: input.site }));
    return 0;
  }
  const siteId = await openStore().sites.revokeKey(input.key ?? '');
  if (siteId === null) throw new Error('no such key (revoked already, or never issued)');
  out.log(JSON.stringify({ revoked: 'key', site_id: siteId }));
  return 0;
}

/**
 * `npm run sites -- <command>` (packages/local/src/sites-cli.ts): the exit code; what is wrong with the
 * site or key asked for is said on `out.error` with exit code 1, bad options with 2.
 */
export async function runSites(
  argv: string[],
  out: SitesOutput,
  env: NodeJS.ProcessEnv = process.env,
  cloudFront: () => CloudFrontClient = () => new CloudFrontClient({ region: 'us-east-1' }),
): Promise<number> {
  let db: ReturnType<typeof createDocumentClient> | undefined;
  try {
    return await run(
      argv,
      out,
      () => createStore((db ??= openClient(env)), env.TABLE_NAME || 'content'),
      () => domainEdge(env, cloudFront),
    );
  } catch (error) {
    out.error(`sites: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    // Its sockets would keep a process (or a test) alive.
    db?.destroy();
  }
}
