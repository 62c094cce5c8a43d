import { App } from 'aws-cdk-lib';
import { ContentApiStack } from './stack';

const app = new App();
new ContentApiStack(app, app.node.tryGetContext('stackName') ?? 'ContentApi', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  dataforseoSecret: app.node.tryGetContext('dataforseoSecret'),
  tavilySecret: app.node.tryGetContext('tavilySecret'),
  bedrockModelId: app.node.tryGetContext('bedrockModelId'),
});
