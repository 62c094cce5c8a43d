import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ENDPOINTS, Meter } from '@cm/providers';
import { selectKeywordData } from '@cm/runtime';
import { startReplay, type Replay } from '../helpers/replay';

/* Which keyword data provider a configuration selects, and credentials read from Secrets Manager (a loopback stand-in). */

let replay: Replay;
let secrets: Server;
const secretRequests: Array<{ target: string | undefined; body: any }> = [];
const saved = { ...process.env };

beforeAll(async () => {
  replay = await startReplay();
  secrets = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      secretRequests.push({ target: req.headers['x-amz-target'] as string | undefined, body });
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(
        JSON.stringify({
          ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:content-api/dataforseo-AbCdEf',
          Name: 'content-api/dataforseo',
          SecretString: JSON.stringify({ login: 'from-secret', password: 'pw-from-secret' }),
          VersionId: 'v1',
        }),
      );
    });
  });
  await new Promise<void>((resolve) => secrets.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(secrets.address() as AddressInfo).port}`,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  });
});
afterAll(async () => {
  process.env = saved;
  await replay.close();
  await new Promise<void>((resolve) => secrets.close(() => resolve()));
});

it('uses the sandbox without credentials', async () => {
  expect((await selectKeywordData({})).name).toBe('sandbox');
  expect((await selectKeywordData({ login: 'only-login' })).name).toBe('sandbox');
});

it('uses DataForSEO with a login and password from the environment', async () => {
  replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.ok' });
  const provider = await selectKeywordData({ login: 'env-login', password: 'env-pw', baseUrl: replay.url });
  expect(provider.name).toBe('dataforseo');
  await provider.serpOrganic('running shoes', 'US/en', 20, new Meter(), { siteDomain: null, competitors: [] });
  expect(replay.requests.at(-1)!.authorization).toBe(`Basic ${Buffer.from('env-login:env-pw').toString('base64')}`);
});

it('reads the credentials from a Secrets Manager secret when one is named', async () => {
  replay.answer(ENDPOINTS.serpOrganic, { fixture: 'serp_organic.ok' });
  const provider = await selectKeywordData({ secret: 'content-api/dataforseo', baseUrl: replay.url }, 'eu-west-1');
  expect(secretRequests).toEqual([{ target: 'secretsmanager.GetSecretValue', body: { SecretId: 'content-api/dataforseo' } }]);
  await provider.serpOrganic('running shoes', 'US/en', 20, new Meter(), { siteDomain: null, competitors: [] });
  expect(replay.requests.at(-1)!.authorization).toBe(`Basic ${Buffer.from('from-secret:pw-from-secret').toString('base64')}`);
});
