import { checkedApp } from './checks';
import { serviceStacks } from './service-stacks';

serviceStacks(checkedApp(), { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION });
