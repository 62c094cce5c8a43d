import { removeDomainTenant, serveDomainTenant, tenantName } from '../../packages/local/src/domain-tenants';
import { replayCloudFront, type CloudFrontReplay, type Recorded } from '../helpers/cloudfront-replay';
import { given } from '../helpers/client';

/* A site's own domain as a CloudFront distribution tenant, against CloudFront's recorded answers. */

const edge = { distributionId: 'E1XNX8R2GOAABC', connectionGroupId: 'cg_2whCJoXMYCjHcxaLGrkllvyABC' };
const TENANT = '/2020-05-31/distribution-tenant';
const ID = 'dt_2zhRB0vBe0B72LZCvy1mgzI1AB';
const notFound: Recorded = { status: 404, fixture: 'error-not-found.xml' };
const details = (fixture: string) => ({
  [`GET /2020-05-31/managed-certificate/${ID}`]: [{ status: 200, fixture }],
  [`GET /2020-05-31/connection-group/${edge.connectionGroupId}`]: [{ status: 200, fixture: 'connection-group.xml' }],
});

let replay: CloudFrontReplay | undefined;
afterEach(async () => {
  await replay?.close();
  replay = undefined;
});
const calls = () => given(replay, 'the replay').asked.map((a) => a.call);

it("creates the site's tenant with a managed certificate and says the owner's DNS step", async () => {
  replay = await replayCloudFront({
    [`GET ${TENANT}/site-2`]: [notFound],
    [`POST ${TENANT}`]: [{ status: 201, fixture: 'tenant-created.xml', etag: 'E2QWRUHAPOMQZL' }],
    ...details('certificate-pending.xml'),
  });
  const tenant = await serveDomainTenant(replay.client, edge, 2, 'shop.example.com');
  expect(tenant).toEqual({
    tenant_id: ID,
    domain: 'shop.example.com',
    status: 'inactive',
    dns: { type: 'CNAME', name: 'shop.example.com', value: 'd111111abcdef8.cloudfront.net' },
    certificate: {
      status: 'pending-validation',
      validation: [
        {
          from: 'http://shop.example.com/.well-known/pki-validation/3b5a6c0f9e2d1c4b8a7f.txt',
          to: 'https://validation.us-east-1.acm-validations.aws/123456789012/.well-known/pki-validation/3b5a6c0f9e2d1c4b8a7f.txt',
        },
      ],
    },
  });
  const create = given(
    replay.asked.find((a) => a.call === `POST ${TENANT}`),
    'the find',
  ).body;
  for (const part of [
    '<DistributionId>E1XNX8R2GOAABC</DistributionId>',
    `<Name>${tenantName(2)}</Name>`,
    '<Domain>shop.example.com</Domain>',
    '<Name>site_domain</Name><Value>shop.example.com</Value>',
    `<ConnectionGroupId>${edge.connectionGroupId}</ConnectionGroupId>`,
    '<ValidationTokenHost>cloudfront</ValidationTokenHost>',
    '<Enabled>true</Enabled>',
  ])
    expect(create).toContain(part);
});

it('changes nothing when run again: one read, no write', async () => {
  replay = await replayCloudFront({
    [`GET ${TENANT}/site-2`]: [{ status: 200, fixture: 'tenant-active.xml', etag: 'E2QWRUHAPOMQZL' }],
    ...details('certificate-issued.xml'),
  });
  const tenant = await serveDomainTenant(replay.client, edge, 2, 'shop.example.com');
  expect(tenant).toMatchObject({ status: 'active', certificate: { status: 'issued' } });
  expect(calls().filter((call) => !call.startsWith('GET '))).toEqual([]);
});

it("moves the site's tenant to a new domain by its ETag", async () => {
  replay = await replayCloudFront({
    [`GET ${TENANT}/site-2`]: [{ status: 200, fixture: 'tenant-other-domain.xml', etag: 'E2QWRUHAPOMQZL' }],
    [`PUT ${TENANT}/${ID}`]: [{ status: 200, fixture: 'tenant-created.xml', etag: 'E3UN6WX5RRO2AG' }],
    ...details('certificate-pending.xml'),
  });
  await serveDomainTenant(replay.client, edge, 2, 'shop.example.com');
  const update = given(
    replay.asked.find((a) => a.call === `PUT ${TENANT}/${ID}`),
    'the find',
  );
  expect(update.ifMatch).toBe('E2QWRUHAPOMQZL');
  expect(update.body).toContain('<Domain>shop.example.com</Domain>');
  expect(update.body).not.toContain('blog.example.org');
});

const CERTIFICATE = 'arn:aws:acm:us-east-1:123456789012:certificate/1234abcd-12ab-34cd-56ef-1234567890ab';
const ASSOCIATION = 'POST /2020-05-31/domain-association';
const group = {
  [`GET /2020-05-31/connection-group/${edge.connectionGroupId}`]: [{ status: 200, fixture: 'connection-group.xml' }],
};

it("moves a domain of the old siteDomains onto the site's tenant: its issued certificate, then UpdateDomainAssociation by the tenant's ETag", async () => {
  replay = await replayCloudFront({
    [`GET ${TENANT}/site-2`]: [notFound],
    [`POST ${TENANT}`]: [{ status: 201, fixture: 'tenant-own-certificate.xml', etag: 'E2QWRUHAPOMQZL' }],
    [ASSOCIATION]: [{ status: 200, fixture: 'domain-association.xml', etag: 'E3UN6WX5RRO2AG' }],
    ...group,
  });
  const tenant = await serveDomainTenant(replay.client, edge, 2, 'shop.example.com', CERTIFICATE);
  expect(tenant).toEqual({
    tenant_id: ID,
    domain: 'shop.example.com',
    status: 'inactive',
    dns: { type: 'CNAME', name: 'shop.example.com', value: 'd111111abcdef8.cloudfront.net' },
    certificate: { status: 'issued', validation: [], arn: CERTIFICATE },
    moved: true,
  });
  const create = given(
    replay.asked.find((a) => a.call === `POST ${TENANT}`),
    'the find',
  ).body;
  expect(create).toContain(`<Customizations><Certificate><Arn>${CERTIFICATE}</Arn></Certificate></Customizations>`);
  // No managed certificate: it would wait for a DNS change to be validated.
  expect(create).not.toContain('ManagedCertificateRequest');
  const move = given(
    replay.asked.find((a) => a.call === ASSOCIATION),
    'the find',
  );
  expect(move.ifMatch).toBe('E2QWRUHAPOMQZL');
  expect(move.body).toContain('<Domain>shop.example.com</Domain>');
  expect(move.body).toContain(`<TargetResource><DistributionTenantId>${ID}</DistributionTenantId></TargetResource>`);
  expect(calls()).not.toContain(`GET /2020-05-31/managed-certificate/${ID}`);
});

it('leaves a moved domain as it is when run again: one read, no write, no move', async () => {
  replay = await replayCloudFront({
    [`GET ${TENANT}/site-2`]: [{ status: 200, fixture: 'tenant-own-certificate-active.xml', etag: 'E3UN6WX5RRO2AG' }],
    ...group,
  });
  const tenant = await serveDomainTenant(replay.client, edge, 2, 'shop.example.com', CERTIFICATE);
  expect(tenant).toMatchObject({ status: 'active', certificate: { status: 'issued', arn: CERTIFICATE } });
  expect(tenant).not.toHaveProperty('moved');
  expect(calls().filter((call) => !call.startsWith('GET '))).toEqual([]);
});

it("gives a site's managed-certificate tenant the certificate asked for", async () => {
  replay = await replayCloudFront({
    [`GET ${TENANT}/site-2`]: [{ status: 200, fixture: 'tenant-active.xml', etag: 'E2QWRUHAPOMQZL' }],
    [`PUT ${TENANT}/${ID}`]: [{ status: 200, fixture: 'tenant-own-certificate-active.xml', etag: 'E3UN6WX5RRO2AG' }],
    ...group,
  });
  await serveDomainTenant(replay.client, edge, 2, 'shop.example.com', CERTIFICATE);
  expect(
    given(
      replay.asked.find((a) => a.call === `PUT ${TENANT}/${ID}`),
      'the find',
    ).body,
  ).toContain(CERTIFICATE);
  expect(calls()).not.toContain(ASSOCIATION);
});

it('deletes the tenant once disabled, each step by the ETag of the one before', async () => {
  replay = await replayCloudFront({
    [`GET ${TENANT}/site-2`]: [{ status: 200, fixture: 'tenant-active.xml', etag: 'E2QWRUHAPOMQZL' }],
    [`PUT ${TENANT}/${ID}`]: [{ status: 200, fixture: 'tenant-disabled.xml', etag: 'E3UN6WX5RRO2AG' }],
    [`DELETE ${TENANT}/${ID}`]: [{ status: 204 }],
  });
  expect(await removeDomainTenant(replay.client, 2)).toBe('deleted');
  const [, disable, remove] = replay.asked;
  expect(disable).toMatchObject({ call: `PUT ${TENANT}/${ID}`, ifMatch: 'E2QWRUHAPOMQZL' });
  expect(given(disable, 'the disable').body).toContain('<Enabled>false</Enabled>');
  expect(remove).toMatchObject({ call: `DELETE ${TENANT}/${ID}`, ifMatch: 'E3UN6WX5RRO2AG' });
});

it('says a tenant still being disabled is left to the next run, which deletes it, and then there is none', async () => {
  replay = await replayCloudFront({
    [`GET ${TENANT}/site-2`]: [
      { status: 200, fixture: 'tenant-active.xml', etag: 'E2QWRUHAPOMQZL' },
      { status: 200, fixture: 'tenant-disabled.xml', etag: 'E3UN6WX5RRO2AG' },
      notFound,
    ],
    [`PUT ${TENANT}/${ID}`]: [{ status: 200, fixture: 'tenant-disabled.xml', etag: 'E3UN6WX5RRO2AG' }],
    [`DELETE ${TENANT}/${ID}`]: [{ status: 409, fixture: 'error-not-disabled.xml' }, { status: 204 }],
  });
  expect(await removeDomainTenant(replay.client, 2)).toBe('disabled');
  expect(await removeDomainTenant(replay.client, 2)).toBe('deleted');
  expect(await removeDomainTenant(replay.client, 2)).toBe('none');
  expect(calls().filter((call) => call.startsWith('PUT '))).toHaveLength(1);
});

it.each([
  [
    'error-cname-exists.xml',
    409,
    /shop\.example\.com is already a domain of another CloudFront distribution or tenant .*: if it is one of -c siteDomains, keep it there, where it serves/,
  ],
  ['error-limit.xml', 400, /quota of CloudFront distribution tenants is reached \(10,000 by default\)/],
  ['error-precondition.xml', 412, /changed while this command ran: run it again/],
])('says what to do when CloudFront answers %s', async (fixture, status, message) => {
  replay = await replayCloudFront({
    [`GET ${TENANT}/site-2`]: [notFound],
    [`POST ${TENANT}`]: [{ status, fixture }],
  });
  await expect(serveDomainTenant(replay.client, edge, 2, 'shop.example.com')).rejects.toThrow(message);
});

it.each([
  ['error-access-denied.xml', 403, /may not manage CloudFront distribution tenants/],
  ['error-throttling.xml', 400, /throttling requests: run the command again in a minute/],
  [
    'error-invalid-argument.xml',
    400,
    /CloudFront refused the request: The domain name shop\.example\.com is not valid/,
  ],
  ['error-invalid-tag.xml', 400, /^CloudFront: InvalidTagging: The tagging specified is not valid\.$/],
])('says what to do when reading the tenant answers %s, and writes nothing', async (fixture, status, message) => {
  replay = await replayCloudFront({
    [`GET ${TENANT}/site-2`]: [
      { status, fixture },
      { status, fixture },
    ],
  });
  await expect(serveDomainTenant(replay.client, edge, 2, 'shop.example.com')).rejects.toThrow(message);
  await expect(removeDomainTenant(replay.client, 2)).rejects.toThrow(message);
  expect(calls()).toEqual([`GET ${TENANT}/site-2`, `GET ${TENANT}/site-2`]);
});
