import { checkedApp } from './checks';
import { ContentApiStack } from './stack';

const app = checkedApp();
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
