import { Annotations, CfnOutput, Duration, NestedStack, Stack, Token, type StackProps } from 'aws-cdk-lib';
import { FunctionUrlAuthType, InvokeMode } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import {
  DEFAULT_BUDGETS,
  FUNCTIONS,
  functionEnvName,
  MCP_INVOKES,
  MCP_PATH,
  MCP_STREAM_TIMEOUT_SECONDS,
  type FunctionName,
  type WorkerName,
} from '@cm/contract';
import { accessOf, DATAFORSEO_READERS } from './access';
import { defaultBedrockModel } from './bedrock-model';
import type { FunctionId } from './bundling';
import { Alarms, breakerAlarm, budgetAlarms, scheduleStoppedAlarm } from './constructs/alarms';
import { concurrencyAlarms, RESERVED_CONCURRENCY } from './constructs/concurrency';
import { edgeDistributions, type EdgeAcls } from './constructs/edge';
import type { LegacySiteDomains } from './constructs/site-edge';
import { httpApi, type CustomDomain, type Throttle } from './constructs/api';
import { grantBedrock, grantInvoke, made, serviceFunction, type FunctionFactory } from './constructs/function';
import { queueWorkers, workerQueues } from './constructs/queues';
import { dailyMonitoring, pageSchedule, researchSweep, scheduleDeadLetters } from './constructs/schedules';
import { contentTable, tableBackups } from './constructs/storage';
import { serviceDashboard } from './constructs/dashboard';
import { oauthSecret } from './constructs/oauth';
import { checkedKmsKey, grantOwnSecret, grantSecret, secretAtDeploy } from './constructs/provider-secrets';

export { DEFAULT_THROTTLE, type CustomDomain } from './constructs/api';
export { pascal } from './constructs/ids';

export interface ContentApiStackProps extends StackProps {
  /** Name or ARN of a Secrets Manager secret `{"login", "password"}` for DataForSEO. */
  dataforseoSecret?: string;
  /** Name or ARN of a Secrets Manager secret `{"api_key"}` for Tavily; without it, web research uses the sandbox. */
  tavilySecret?: string;
  /**
   * Name or ARN of a Secrets Manager secret holding the deployment's Google service account key (its
   * JSON); without it, Search Console is the sandbox's.
   */
  searchConsoleSecret?: string;
  /**
   * The ARN of the customer managed KMS key the provider secrets are encrypted under; without it, they
   * must be under the account's default key (`aws/secretsmanager`).
   */
  secretsKmsKeyArn?: string;
  /**
   * The Bedrock model (or cross-region inference profile) id that synthesizes research findings; by
   * default, the default model's profile of the stack's region ({@link defaultBedrockModel}).
   */
  bedrockModelId?: string;
  /** Stage throttling of the HTTP API; defaults to {@link DEFAULT_THROTTLE}. */
  throttle?: Throttle;
  /** An address to email when an alarm fires; without it, subscribe to the `AlarmTopic` output yourself. */
  alarmEmail?: string;
  /** A custom domain for the API; it is then the base of every visitor-page URL (PUBLIC_BASE_URL). */
  domain?: CustomDomain;
  /**
   * A domain of API Gateway's own (its certificate in the stack's region) that only the API's
   * distribution uses as its origin: with it the API's execute-api address is turned off, so no caller
   * goes around WAF to it. Needs `edge`; without it the execute-api address stays open (a warning).
   */
  apiOrigin?: CustomDomain;
  /**
   * Deprecated: the sites' domains as aliases of the pages' distribution, as before the tenants. Kept for
   * one release so they keep serving until each is moved to its tenant (a synth warning says so).
   */
  legacySiteDomains?: LegacySiteDomains;
  /**
   * The deployment's daily provider spend cap in USD, across all sites (`GLOBAL_DAILY_BUDGET_USD`); by
   * default DEFAULT_BUDGETS.globalDailyUsd (the synth says so), null: none.
   */
  globalDailyBudgetUsd?: number | null;
  /**
   * The web ACLs (EdgeStack's, in us-east-1) of the CloudFront distributions put in front of the API and
   * the streaming endpoint; without them, no distribution is made (a stack tested alone).
   */
  edge?: EdgeAcls;
  /**
   * A table to use instead of making one: a restore of the service's table (a new table), or the
   * retained table of a deleted stack (docs/runbook.md#restoring-the-table).
   */
  existingTableName?: string;
  /** Which origin secret CloudFront and the functions share (docs/operations.md): a new number replaces it. */
  originVerifyVersion?: number;
  /**
   * Reserve concurrency for the functions a tenant or a slow provider can fill (concurrency.ts; default
   * true). An account whose Lambda concurrency quota is under RESERVED_TOTAL + 100 (Lambda keeps 100 unreserved;
   * the figure in docs/operations.md) cannot: false leaves every function in the shared pool.
   */
  reserveConcurrency?: boolean;
}

/**
 * The service: one DynamoDB table, one HTTP API, one Lambda function per group of routes in the route
 * table, and a queue (with a dead-letter queue and its alarm) and worker function per worker.
 */
export class ContentApiStack extends Stack {
  readonly functions = new Map<FunctionName, NodejsFunction>();
  readonly workers: Map<WorkerName, NodejsFunction>;
  readonly monitorSchedule: NodejsFunction;
  readonly researchSweep: NodejsFunction;
  readonly pageSchedule: NodejsFunction;
  /** The streaming MCP endpoint, behind its own function URL (API Gateway's HTTP API sends replies whole). */
  readonly mcpStream: NodejsFunction;

  constructor(scope: Construct, id: string, props: ContentApiStackProps = {}) {
    super(scope, id, props);

    const table = contentTable(this, props.existingTableName);
    tableBackups(this, table);
    // CloudFormation takes 500 resources a stack: the alarms (and the dashboard), the functions' log
    // groups and the API's integrations (api.ts) are in nested stacks of their own, so that a tool costs
    // this stack only its function, role, policy and routes (docs/architecture/aws-stack.md#a-stack-that-can-grow).
    const alarmStack = new NestedStack(this, 'Alarms', { description: "The service's alarms and its dashboard" });
    const logs = new NestedStack(this, 'Logs', { description: "The service's functions' log groups" });
    const alarms = new Alarms(this, props.alarmEmail, alarmStack);
    const queues = workerQueues(this, alarms);
    // Every function by name, for the credential grants below.
    const byName = new Map<FunctionId, NodejsFunction>();
    const reserve = props.reserveConcurrency ?? true;
    const lambda: FunctionFactory = (name, timeout) => {
      const fn = serviceFunction(this, name, {
        timeout,
        access: accessOf(name),
        table,
        queues,
        alarms,
        logs,
        reservedConcurrency: reserve ? RESERVED_CONCURRENCY[name] : undefined,
      });
      byName.set(name, fn);
      return fn;
    };

    // API Gateway gives an integration 30 s at most.
    for (const fn of FUNCTIONS) this.functions.set(fn, lambda(fn, Duration.seconds(29)));
    this.workers = queueWorkers(queues, lambda);
    const missedSchedules = scheduleDeadLetters(this, alarms);
    this.monitorSchedule = dailyMonitoring(this, lambda, missedSchedules);
    this.researchSweep = researchSweep(this, lambda, missedSchedules);
    this.pageSchedule = pageSchedule(this, lambda, missedSchedules);
    this.mcpStream = lambda('mcp-stream', Duration.seconds(MCP_STREAM_TIMEOUT_SECONDS));

    // Provider credentials live in Secrets Manager; without a secret the tools use the sandbox provider.
    const secretsKmsKeyArn = checkedKmsKey(props.secretsKmsKeyArn);
    if (props.dataforseoSecret) {
      secretAtDeploy(this, 'dataforseoSecret', props.dataforseoSecret);
      for (const name of DATAFORSEO_READERS)
        grantSecret(made(byName, name), 'DATAFORSEO_SECRET', props.dataforseoSecret, secretsKmsKeyArn);
    }
    // Only the research worker searches, fetches and synthesizes.
    const researchWorker = made(this.workers, 'research');
    grantBedrock(researchWorker, props.bedrockModelId ?? this.bedrockModelOfRegion());
    if (props.tavilySecret) {
      secretAtDeploy(this, 'tavilySecret', props.tavilySecret);
      grantSecret(researchWorker, 'TAVILY_SECRET', props.tavilySecret, secretsKmsKeyArn);
      // The research tool only names it (it may not read it), so a job it queues says which provider runs it.
      made(this.functions, 'research').addEnvironment('TAVILY_SECRET', props.tavilySecret);
    }
    // The import reads Search Console with the key; the usage function shows the account's e-mail to add.
    if (props.searchConsoleSecret) {
      secretAtDeploy(this, 'searchConsoleSecret', props.searchConsoleSecret);
      for (const fn of [made(this.workers, 'search-console'), made(this.functions, 'usage')])
        grantSecret(fn, 'SEARCH_CONSOLE_SECRET', props.searchConsoleSecret, secretsKmsKeyArn);
    }

    // Every function that makes or queues paid calls reserves against the deployment's cap too.
    const dailyCap = this.globalDailyBudget(props.globalDailyBudgetUsd);
    if (dailyCap !== null)
      for (const fn of byName.values()) fn.addEnvironment('GLOBAL_DAILY_BUDGET_USD', String(dailyCap));
    budgetAlarms(this, alarms);
    // Only a deployment with a cap has a schedule that stops short of it.
    if (dailyCap !== null) scheduleStoppedAlarm(alarms);
    breakerAlarm(alarms);
    if (reserve) concurrencyAlarms(alarms, byName, table);

    // MCP runs each tool by invoking the tool's own function, so every tool keeps its own least-privilege role.
    const mcpEndpoints = [made(this.functions, 'mcp'), this.mcpStream];
    for (const mcp of mcpEndpoints) {
      for (const target of MCP_INVOKES)
        mcp.addEnvironment(functionEnvName(target), made(this.functions, target).functionName);
      grantInvoke(
        mcp,
        MCP_INVOKES.map((target) => made(this.functions, target)),
      );
    }
    oauthSecret(this, made(this.functions, 'oauth'));

    // The handler checks the origin secret and the API key itself, as on the API's POST /mcp: not OAC, whose
    // signed bodies MCP clients cannot send (docs/api/decisions.md#streaming-function-url).
    const mcpStreamUrl = this.mcpStream.addFunctionUrl({
      authType: FunctionUrlAuthType.NONE,
      invokeMode: InvokeMode.RESPONSE_STREAM,
    });

    // Behind the edge, a custom domain is the API distribution's, and API Gateway's own domain is only the
    // distribution's origin; a stack without the edge maps the domain on API Gateway.
    if (props.apiOrigin && !props.edge) throw new Error("apiOrigin is the API distribution's origin: it takes edge");
    if (props.edge && !props.apiOrigin)
      Annotations.of(this).addWarningV2(
        '@cm/infra:execute-api-open',
        "No -c apiOriginDomain: the API's execute-api address stays open beside CloudFront; its functions refuse what did not pass WAF (403 edge_required), but those requests count against the routes' throttles (docs/operations.md#only-through-cloudfront-the-origin-secret)",
      );
    const { api, domainName } = httpApi(
      this,
      this.functions,
      alarms,
      props.throttle,
      props.edge ? props.apiOrigin : props.domain,
      props.apiOrigin !== undefined,
    );
    serviceDashboard(alarmStack, { api, functions: byName, queues, table });
    const edge = props.edge
      ? edgeDistributions(this, api, mcpStreamUrl, props.edge, {
          domain: props.domain,
          originVerifyVersion: props.originVerifyVersion,
          apiOriginHost: props.apiOrigin?.name,
          legacySiteDomains: props.legacySiteDomains,
        })
      : undefined;
    if (props.legacySiteDomains)
      Annotations.of(this).addWarningV2(
        '@cm/infra:site-domains-deprecated',
        "-c siteDomains and -c siteCertificateArn are deprecated and go in the next release: move each domain to its site's tenant, then deploy without them (docs/operations.md#moving-the-domains-of-sitedomains-to-tenants)",
      );
    if (props.legacySiteDomains && !edge)
      throw new Error("siteDomains are served by the pages' distribution: they take edge");
    const edgeUrl = edge && `https://${edge.api.distributionDomainName}`;
    // Every function that answers HTTP checks the origin secret (the workers answer none): they read it at run time.
    if (edge)
      grantOwnSecret([...this.functions.values(), this.mcpStream], 'ORIGIN_VERIFY_SECRET_ARN', edge.originVerify);
    // The address readers and callers use: the custom domain, else the API's distribution (behind WAF).
    // Without either each request's own host is the base: naming the API's URL here would make the
    // functions depend on the API that depends on them (the distribution names only the API itself).
    const publicBaseUrl = props.domain ? `https://${props.domain.name}` : (edgeUrl ?? api.apiEndpoint);
    if (props.domain || edgeUrl)
      for (const fn of this.functions.values()) fn.addEnvironment('PUBLIC_BASE_URL', publicBaseUrl);
    // The streaming endpoint's own host (its function URL) serves only /mcp, so the links it answers are
    // the API's; the API does not depend on this function, so naming its URL makes no cycle.
    this.mcpStream.addEnvironment('PUBLIC_BASE_URL', publicBaseUrl);

    new CfnOutput(this, 'ApiUrl', {
      value: edgeUrl ?? api.apiEndpoint,
      description: 'publish_url and platform_url (behind WAF when the stack has its EdgeStack)',
    });
    new CfnOutput(this, 'PublicBaseUrl', {
      value: publicBaseUrl,
      description: 'The base of visitor-page URLs and canonical links',
    });
    const domainTarget = edge && props.domain ? edge.api.distributionDomainName : domainName?.regionalDomainName;
    if (domainTarget && props.domain) {
      new CfnOutput(this, 'ApiDomainTarget', {
        value: domainTarget,
        description: `Point ${props.domain.name} here (CNAME or alias)`,
      });
    }
    if (props.apiOrigin && domainName)
      new CfnOutput(this, 'ApiOriginTarget', {
        value: domainName.regionalDomainName,
        description: `Point ${props.apiOrigin.name} here (CNAME): the API distribution's origin`,
      });
    if (edge) {
      // The sites' pages on an origin apart from the API's and the dashboard's.
      for (const fn of [...this.functions.values(), this.mcpStream])
        fn.addEnvironment('PUBLIC_PAGES_URL', `https://${edge.pages.distributionDomainName}`);
      new CfnOutput(this, 'PagesUrl', {
        value: `https://${edge.pages.distributionDomainName}`,
        description: "The address of the sites' pages that serve no domain of their own: <PagesUrl>/sites/<id>/",
      });
    }
    if (edge) {
      // What `npm run sites -- serve-domain` makes a site's tenant on, and what the site's domain points at.
      new CfnOutput(this, 'SiteDomainsDistributionId', {
        value: edge.siteDomains.distribution.distributionId,
        description:
          "SITE_DOMAINS_DISTRIBUTION_ID for `npm run sites -- serve-domain`: the sites' domains' distribution",
      });
      new CfnOutput(this, 'SiteDomainsConnectionGroupId', {
        value: edge.siteDomains.connectionGroup.attrId,
        description:
          "SITE_DOMAINS_CONNECTION_GROUP_ID for `npm run sites -- serve-domain`: the tenants' connection group",
      });
      new CfnOutput(this, 'SiteDomainsTarget', {
        value: edge.siteDomains.connectionGroup.attrRoutingEndpoint,
        description: "Point each site's own domain here (CNAME): the connection group's routing endpoint",
      });
    }
    new CfnOutput(this, 'McpStreamUrl', {
      // A function URL ends with a slash.
      value: edge
        ? `https://${edge.stream.distributionDomainName}${MCP_PATH}`
        : `${mcpStreamUrl.url}${MCP_PATH.slice(1)}`,
      description: 'The streaming MCP endpoint: progress as it comes, approval by elicitation',
    });
    new CfnOutput(this, 'TableName', { value: table.tableName, description: 'TABLE_NAME for `npm run sites`' });
    alarms.outputs();
  }

  /**
   * The deployment's daily cap: the one given, else the default, which the synth names (an info
   * annotation, and the GlobalDailyBudgetUsd output); `null` (-c globalDailyBudgetUsd=none) is none, and
   * a warning.
   */
  private globalDailyBudget(given: number | null | undefined): number | null {
    if (given === null) {
      Annotations.of(this).addWarningV2(
        '@cm/infra:no-global-daily-budget',
        'globalDailyBudgetUsd=none: nothing caps what all sites together spend on paid providers a day',
      );
      return null;
    }
    if (given !== undefined && !(Number.isFinite(given) && given >= 0))
      throw new Error(`-c globalDailyBudgetUsd must be a number of USD (0 or more) or none, not ${given}`);
    const cap = given ?? DEFAULT_BUDGETS.globalDailyUsd;
    if (given === undefined)
      Annotations.of(this).addInfo(
        `No -c globalDailyBudgetUsd: all sites together may spend at most $${cap} a day on paid providers (the default, docs/operations.md#budgets); the daily schedule's work stops at ${100 - DEFAULT_BUDGETS.scheduleReservePct}% of it`,
      );
    new CfnOutput(this, 'GlobalDailyBudgetUsd', {
      value: String(cap),
      description: `What all sites together may spend on paid providers a UTC day (-c globalDailyBudgetUsd${given === undefined ? ', not given: the default' : ''})`,
    });
    return cap;
  }

  /** The default model's profile of this stack's region; a synth with no region keeps the US one, and says so. */
  private bedrockModelOfRegion(): string {
    if (!Token.isUnresolved(this.region)) return defaultBedrockModel(this.region);
    Annotations.of(this).addWarningV2(
      '@cm/infra:bedrock-model-of-unknown-region',
      'The stack has no region at synth, so web research uses the US inference profile; outside US regions deploy with a region (CDK_DEFAULT_REGION) or -c bedrockModelId=…',
    );
    return defaultBedrockModel(undefined);
  }
}
