import type { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import type { Store } from '@cm/store';
import {
  DomainTenantError,
  removeDomainTenant,
  serveDomainTenant,
  type DomainTenant,
  type SiteDomainsEdge,
} from './domain-tenants';

/*
 * `npm run sites -- serve-domain`: a site's pages at its own domain. Deployed, the domain is the site's
 * distribution tenant (domain-tenants.ts); the site's URLs name the domain only once its certificate is
 * issued, so no page links to a domain that does not answer over HTTPS. Locally the server maps the
 * Host itself and the registration alone serves it.
 */

/** Where a deployment's tenants are made, and the client that makes them; absent on the local stack. */
export interface DomainEdge {
  edge: SiteDomainsEdge;
  cloudFront: () => CloudFrontClient;
}

/** What the command prints: the domain the site's URLs name now, and its tenant while it has one. */
export interface ServedDomain {
  site_id: number;
  served_domain: string | null;
  tenant?: DomainTenant;
  next?: string;
}

/** The deployment's tenants from the stack's outputs in `env`: both, or neither (the local stack). */
export function domainEdge(env: NodeJS.ProcessEnv, cloudFront: () => CloudFrontClient): DomainEdge | undefined {
  const distributionId = env.SITE_DOMAINS_DISTRIBUTION_ID;
  const connectionGroupId = env.SITE_DOMAINS_CONNECTION_GROUP_ID;
  if (distributionId && connectionGroupId) return { edge: { distributionId, connectionGroupId }, cloudFront };
  if (distributionId || connectionGroupId || env.DYNAMODB_ENDPOINT === 'aws')
    throw new DomainTenantError(
      "a deployment's site domains take SITE_DOMAINS_DISTRIBUTION_ID and SITE_DOMAINS_CONNECTION_GROUP_ID (the stack's outputs)",
    );
  return undefined;
}

/**
 * Serves the site's pages at `domain`: refused before any CloudFront call when another site has it;
 * with a deployment's edge, the tenant first, and the site's URLs move once its certificate is issued
 * (until then `next` says what the owner does, and running the command again moves them).
 * `certificateArn`: the domain's ACM certificate, for a domain of the deprecated siteDomains moved to
 * its tenant (domain-tenants.ts); issued already, so the URLs stay on the domain throughout.
 */
export async function serveDomain(
  store: Store,
  edge: DomainEdge | undefined,
  siteId: number,
  domain: string,
  certificateArn?: string,
): Promise<ServedDomain> {
  const owner = await store.sites.siteOfDomain(domain);
  if (owner && owner.site_id !== siteId) throw new DomainTenantError(`${domain} is served for another site already`);
  if (certificateArn && !edge)
    throw new DomainTenantError("--certificate-arn is for a deployment's tenants: the local stack has none");
  const tenant = edge && (await serveDomainTenant(edge.cloudFront(), edge.edge, siteId, domain, certificateArn));
  if (tenant && tenant.certificate.status !== 'issued') {
    const site = await store.sites.get(siteId);
    return {
      site_id: siteId,
      served_domain: site?.served_domain ?? null,
      tenant,
      next: `point ${domain} at ${tenant.dns.value} (CNAME); CloudFront validates its certificate over HTTP once it resolves, then run this again`,
    };
  }
  const served = await store.sites.serveDomain(siteId, domain);
  if (served === 'taken') throw new DomainTenantError(`${domain} is served for another site already`);
  if (served === 'no_site') throw new DomainTenantError(`there is no site ${siteId}`);
  return {
    site_id: siteId,
    served_domain: domain,
    ...(tenant ? { tenant } : {}),
    ...(tenant?.moved
      ? {
          next: `${domain} is served by its tenant now: leave it out of -c siteDomains from the next deploy, and ask its owner to point it at ${tenant.dns.value} (CNAME)`,
        }
      : {}),
  };
}

/** The site's URLs go back to the deployment's address first, then its tenant is deleted (disabled first). */
export async function stopServingDomain(
  store: Store,
  edge: DomainEdge | undefined,
  siteId: number,
): Promise<ServedDomain & { tenant_removed?: 'deleted' | 'disabled' | 'none' }> {
  await store.sites.stopServingDomain(siteId);
  if (!edge) return { site_id: siteId, served_domain: null };
  const removed = await removeDomainTenant(edge.cloudFront(), siteId);
  return {
    site_id: siteId,
    served_domain: null,
    tenant_removed: removed,
    ...(removed === 'disabled'
      ? { next: 'CloudFront is still disabling the tenant: run this again to delete it' }
      : {}),
  };
}
