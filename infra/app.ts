import { checkedApp } from './checks';
import { ContentApiStack } from './stack';

const app = checkedApp();
const context = (key: string) => app.node.tryGetContext(key) as string | undefined;
const limit = (key: string) => (context(key) === undefined ? undefined : Number(context(key)));
const [domainName, certificateArn] = [context('domainName'), context('certificateArn')];
if (!domainName !== !certificateArn)
  throw new Error(
    'A custom domain takes both -c domainName=… and -c certificateArn=… (an ACM certificate in the stack region)',
  );
new ContentApiStack(app, context('stackName') ?? 'ContentApi', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  dataforseoSecret: context('dataforseoSecret'),
  tavilySecret: context('tavilySecret'),
  bedrockModelId: context('bedrockModelId'),
  alarmEmail: context('alarmEmail'),
  domain: domainName && certificateArn ? { name: domainName, certificateArn } : undefined,
  globalDailyBudgetUsd: limit('globalDailyBudgetUsd'),
  throttle: { rateLimit: limit('apiRateLimit'), burstLimit: limit('apiBurstLimit') },
});
