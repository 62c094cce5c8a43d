import {
  CloudFrontServiceException,
  CreateDistributionTenantCommand,
  DeleteDistributionTenantCommand,
  GetConnectionGroupCommand,
  GetDistributionTenantCommand,
  GetManagedCertificateDetailsCommand,
  UpdateDistributionTenantCommand,
  UpdateDomainAssociationCommand,
  type CloudFrontClient,
  type DistributionTenant,
} from '@aws-sdk/client-cloudfront';
import { SITE_DOMAIN_PARAMETER } from '@cm/contract';

/*
 * A site's own domain is a distribution tenant of the sites' multi-tenant distribution
 * (infra/constructs/site-edge.ts), made, changed and deleted at run time by `npm run sites --
 * serve-domain`: one tenant per site, named after the site, its domain its only one, a CloudFront-managed
 * certificate, and the tenant parameter the edge function rewrites every request by. A domain that the
 * deprecated `siteDomains` serve as an alias of the pages' distribution is moved instead: its tenant has
 * the ACM certificate that already covers it, and the domain moves onto it with UpdateDomainAssociation
 * (CloudFront's move between two resources of one account), so it never stops serving.
 */

/** Where the sites' tenants are made: the stack's SiteDomainsDistributionId and SiteDomainsConnectionGroupId outputs. */
export interface SiteDomainsEdge {
  distributionId: string;
  connectionGroupId: string;
}

/** What the site's owner does in DNS, and where the tenant's certificate stands. */
export interface DomainTenant {
  tenant_id: string;
  domain: string;
  /** The tenant's domain status as CloudFront reports it (`active` once it serves). */
  status: string;
  dns: { type: 'CNAME'; name: string; value: string };
  certificate: {
    /** pending-validation | issued | inactive | expired | validation-timed-out | revoked | failed */
    status: string;
    /** The HTTP validation token CloudFront serves once the CNAME resolves to it: RedirectFrom → RedirectTo. */
    validation: { from: string; to: string }[];
    /** An ACM certificate of the account (not a managed one): issued already, CloudFront took it. */
    arn?: string;
  };
  /** The domain was moved onto the tenant from the resource that held it (UpdateDomainAssociation). */
  moved?: true;
}

/** The tenant of a site: one per site, so the name says which (CloudFront's names are unique in an account). */
export const tenantName = (siteId: number): string => `site-${siteId}`;

/** A CloudFront error said as what to do about it. */
export class DomainTenantError extends Error {}

const CHANGED = () => 'the tenant changed while this command ran: run it again';
const ADVICE: Record<string, (error: Error, domain: string) => string> = {
  CNAMEAlreadyExists: (_, domain) =>
    `${domain} is already a domain of another CloudFront distribution or tenant (in this or another AWS account): if it is one of -c siteDomains, keep it there, where it serves, and move it (docs/operations.md#moving-the-domains-of-sitedomains-to-tenants); otherwise remove it there first`,
  EntityLimitExceeded: () =>
    "the account's quota of CloudFront distribution tenants is reached (10,000 by default): ask AWS Support for more (docs/operations.md#a-sites-own-domain)",
  AccessDenied: () =>
    'your AWS credentials may not manage CloudFront distribution tenants (cloudfront:*DistributionTenant*, cloudfront:GetManagedCertificateDetails, cloudfront:GetConnectionGroup, cloudfront:UpdateDomainAssociation)',
  PreconditionFailed: CHANGED,
  InvalidIfMatchVersion: CHANGED,
  Throttling: () => "CloudFront's API is throttling requests: run the command again in a minute",
  InvalidArgument: (error) => `CloudFront refused the request: ${error.message}`,
};

/** `call`'s answer; a CloudFront error becomes a DomainTenantError saying what to do. */
async function said<T>(domain: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof CloudFrontServiceException)) throw error;
    const advice = ADVICE[error.name];
    throw new DomainTenantError(advice ? advice(error, domain) : `CloudFront: ${error.name}: ${error.message}`);
  }
}

/** The site's tenant and its version (ETag), or null when it has none. */
async function siteTenant(
  cloudFront: CloudFrontClient,
  siteId: number,
): Promise<{ tenant: DistributionTenant; etag: string } | null> {
  try {
    const out = await cloudFront.send(new GetDistributionTenantCommand({ Identifier: tenantName(siteId) }));
    return out.DistributionTenant && out.ETag ? { tenant: out.DistributionTenant, etag: out.ETag } : null;
  } catch (error) {
    if (error instanceof CloudFrontServiceException && error.name === 'EntityNotFound') return null;
    throw error;
  }
}

/**
 * The tenant serves `domain`, and only it, with its parameter naming it, enabled, in the connection group,
 * and with `certificateArn` when one is given (without, whichever certificate it has).
 */
function servesOnly(
  tenant: DistributionTenant,
  domain: string,
  edge: SiteDomainsEdge,
  certificateArn: string | undefined,
): boolean {
  const parameter = tenant.Parameters?.find((p) => p.Name === SITE_DOMAIN_PARAMETER)?.Value;
  return (
    (certificateArn === undefined || tenant.Customizations?.Certificate?.Arn === certificateArn) &&
    tenant.Enabled === true &&
    tenant.ConnectionGroupId === edge.connectionGroupId &&
    tenant.Domains?.length === 1 &&
    tenant.Domains[0]?.Domain === domain &&
    parameter === domain
  );
}

/** Where the tenant's certificate stands: an account's ACM certificate is issued; a managed one, as CloudFront says. */
async function certificateOf(
  cloudFront: CloudFrontClient,
  tenant: DistributionTenant & { Id: string },
): Promise<DomainTenant['certificate']> {
  const arn = tenant.Customizations?.Certificate?.Arn;
  if (arn) return { status: 'issued', validation: [], arn };
  const details = (await cloudFront.send(new GetManagedCertificateDetailsCommand({ Identifier: tenant.Id })))
    .ManagedCertificateDetails;
  return {
    status: details?.CertificateStatus ?? 'pending-validation',
    validation: (details?.ValidationTokenDetails ?? []).flatMap((token) =>
      token.RedirectFrom && token.RedirectTo ? [{ from: token.RedirectFrom, to: token.RedirectTo }] : [],
    ),
  };
}

/**
 * Makes the site's tenant serve `domain` (created, or changed from the domain it served). Without
 * `certificateArn`, with a certificate CloudFront manages and validates over HTTP once the domain points
 * at the connection group. With it (an ACM certificate in us-east-1 covering the domain: siteCertificateArn),
 * with that certificate, valid before any DNS change; a domain the tenant does not serve yet is then
 * moved onto it from the resource of this account that holds it (UpdateDomainAssociation). Running it
 * again changes nothing (one read, no write) and reports where the certificate stands.
 */
export async function serveDomainTenant(
  cloudFront: CloudFrontClient,
  edge: SiteDomainsEdge,
  siteId: number,
  domain: string,
  certificateArn?: string,
): Promise<DomainTenant> {
  return said(domain, async () => {
    const existing = await siteTenant(cloudFront, siteId);
    const wanted = {
      Domains: [{ Domain: domain }],
      Parameters: [{ Name: SITE_DOMAIN_PARAMETER, Value: domain }],
      ConnectionGroupId: edge.connectionGroupId,
      ...(certificateArn
        ? { Customizations: { Certificate: { Arn: certificateArn } } }
        : { ManagedCertificateRequest: { ValidationTokenHost: 'cloudfront' as const, PrimaryDomainName: domain } }),
      Enabled: true,
    };
    let [tenant, etag] = [existing?.tenant, existing?.etag];
    if (!existing) {
      const out = await cloudFront.send(
        new CreateDistributionTenantCommand({
          DistributionId: edge.distributionId,
          Name: tenantName(siteId),
          ...wanted,
        }),
      );
      [tenant, etag] = [out.DistributionTenant, out.ETag];
    } else if (!servesOnly(existing.tenant, domain, edge, certificateArn)) {
      const out = await cloudFront.send(
        new UpdateDistributionTenantCommand({
          Id: existing.tenant.Id,
          DistributionId: edge.distributionId,
          IfMatch: existing.etag,
          ...wanted,
        }),
      );
      [tenant, etag] = [out.DistributionTenant, out.ETag];
    }
    const id = tenant?.Id;
    if (!tenant || !id) throw new DomainTenantError(`CloudFront answered without the tenant of site ${siteId}`);
    const status = tenant.Domains?.find((d) => d.Domain === domain)?.Status ?? 'inactive';
    // Same account: the domain moves in one step, without disabling the distribution that held it.
    const moved = certificateArn !== undefined && status !== 'active';
    if (moved)
      await cloudFront.send(
        new UpdateDomainAssociationCommand({
          Domain: domain,
          TargetResource: { DistributionTenantId: id },
          IfMatch: etag,
        }),
      );
    const [certificate, group] = await Promise.all([
      certificateOf(cloudFront, { ...tenant, Id: id }),
      cloudFront.send(new GetConnectionGroupCommand({ Identifier: edge.connectionGroupId })),
    ]);
    const endpoint = group.ConnectionGroup?.RoutingEndpoint;
    if (!endpoint) throw new DomainTenantError(`connection group ${edge.connectionGroupId} has no routing endpoint`);
    return {
      tenant_id: id,
      domain,
      status,
      dns: { type: 'CNAME', name: domain, value: endpoint },
      certificate,
      ...(moved ? { moved: true as const } : {}),
    };
  });
}

/**
 * Deletes the site's tenant: CloudFront deletes only a disabled one, so it is disabled first (by its
 * ETag). `disabled`: CloudFront still deploys the change and refused the deletion; run it again to delete.
 * `none`: the site had no tenant.
 */
export async function removeDomainTenant(
  cloudFront: CloudFrontClient,
  siteId: number,
): Promise<'deleted' | 'disabled' | 'none'> {
  return said(tenantName(siteId), async () => {
    const existing = await siteTenant(cloudFront, siteId);
    if (!existing?.tenant.Id) return 'none';
    let etag = existing.etag;
    if (existing.tenant.Enabled !== false) {
      const out = await cloudFront.send(
        new UpdateDistributionTenantCommand({
          Id: existing.tenant.Id,
          DistributionId: existing.tenant.DistributionId,
          Domains: existing.tenant.Domains?.map((d) => ({ Domain: d.Domain })),
          Parameters: existing.tenant.Parameters,
          ConnectionGroupId: existing.tenant.ConnectionGroupId,
          IfMatch: etag,
          Enabled: false,
        }),
      );
      etag = out.ETag ?? etag;
    }
    try {
      await cloudFront.send(new DeleteDistributionTenantCommand({ Id: existing.tenant.Id, IfMatch: etag }));
      return 'deleted';
    } catch (error) {
      if (error instanceof CloudFrontServiceException && error.name === 'ResourceNotDisabled') return 'disabled';
      throw error;
    }
  });
}
