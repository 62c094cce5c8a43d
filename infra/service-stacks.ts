import type { App, Environment } from 'aws-cdk-lib';
import { EdgeStack } from './edge-stack';
import { ContentApiStack } from './stack';

/**
 * The app's two stacks, configured by its context (`-c key=value`, docs/operations.md): the service in
 * `env`'s region, and its edge (WAF's web ACLs) in us-east-1.
 */
export function serviceStacks(app: App, env: Environment): { edge: EdgeStack; service: ContentApiStack } {
  /** A context value: `-c key=value` gives text, and cdk.json may give a number. */
  const context = (key: string): string | undefined => {
    const value: unknown = app.node.tryGetContext(key);
    if (value === undefined || typeof value === 'string') return value;
    if (typeof value === 'number') return String(value);
    throw new Error(`Context ${key} must be text or a number, not ${JSON.stringify(value)}`);
  };
  const limit = (key: string) => (context(key) === undefined ? undefined : Number(context(key)));
  const [domainName, certificateArn] = [context('domainName'), context('certificateArn')];
  if (!domainName !== !certificateArn)
    throw new Error(
      'A custom domain takes both -c domainName=… and -c certificateArn=… (an ACM certificate in us-east-1, for CloudFront)',
    );
  // Deprecated: the sites' domains as the pages' distribution's aliases, kept while they move to tenants.
  const [siteDomains, siteCertificateArn] = [context('siteDomains'), context('siteCertificateArn')];
  if (!siteDomains !== !siteCertificateArn)
    throw new Error(
      "The sites' domains of before take both -c siteDomains=a.example,b.example and -c siteCertificateArn=… (an ACM certificate in us-east-1 naming them all)",
    );
  const [apiOriginDomain, apiOriginCertificateArn] = [context('apiOriginDomain'), context('apiOriginCertificateArn')];
  if (!apiOriginDomain !== !apiOriginCertificateArn)
    throw new Error(
      "The API's origin domain takes both -c apiOriginDomain=… and -c apiOriginCertificateArn=… (an ACM certificate in the stack's region)",
    );
  const stackName = context('stackName') ?? 'ContentApi';
  const { account, region } = env;
  // A deletion takes turning it off first (docs/operations.md); a throwaway stack can do without.
  const terminationProtection = context('terminationProtection') !== 'false';
  // WAF's web ACLs of CloudFront distributions are made in us-east-1, whatever region the service is in;
  // a synth with no region (offline) keeps both stacks environment-agnostic.
  const crossRegion = region !== undefined && region !== 'us-east-1';
  const edge = new EdgeStack(app, `${stackName}Edge`, {
    env: region === undefined ? undefined : { account, region: 'us-east-1' },
    crossRegionReferences: crossRegion,
    terminationProtection,
    alarmEmail: context('alarmEmail'),
  });
  const service = new ContentApiStack(app, stackName, {
    env: { account, region },
    crossRegionReferences: crossRegion,
    terminationProtection,
    edge: { api: edge.apiAcl.attrArn, stream: edge.streamAcl.attrArn },
    originVerifyVersion: limit('originVerifyVersion'),
    existingTableName: context('existingTableName'),
    reserveConcurrency: context('reserveConcurrency') !== 'false',
    dataforseoSecret: context('dataforseoSecret'),
    tavilySecret: context('tavilySecret'),
    searchConsoleSecret: context('searchConsoleSecret'),
    secretsKmsKeyArn: context('secretsKmsKeyArn'),
    bedrockModelId: context('bedrockModelId'),
    alarmEmail: context('alarmEmail'),
    domain: domainName && certificateArn ? { name: domainName, certificateArn } : undefined,
    legacySiteDomains:
      siteDomains && siteCertificateArn
        ? { names: siteDomains.split(',').map((name) => name.trim().toLowerCase()), certificateArn: siteCertificateArn }
        : undefined,
    apiOrigin:
      apiOriginDomain && apiOriginCertificateArn
        ? { name: apiOriginDomain, certificateArn: apiOriginCertificateArn }
        : undefined,
    globalDailyBudgetUsd: context('globalDailyBudgetUsd') === 'none' ? null : limit('globalDailyBudgetUsd'),
    throttle: { rateLimit: limit('apiRateLimit'), burstLimit: limit('apiBurstLimit') },
  });
  return { edge, service };
}
