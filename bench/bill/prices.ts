/*
 * AWS list prices the bill uses, us-east-1, on-demand, in USD, as AWS's pricing pages state them (read
 * for this table on 2026-11-29; the figures are the ones those pages have published since the
 * DynamoDB on-demand price cut of 2024-11-01). Free tiers are left out: at 1,000 sites they are noise.
 * One line per priced unit, with the page it comes from.
 */

interface AwsPrice {
  usd: number;
  per: string;
  source: string;
}

const LAMBDA = 'https://aws.amazon.com/lambda/pricing/';
const DYNAMODB = 'https://aws.amazon.com/dynamodb/pricing/on-demand/';
const CLOUDWATCH = 'https://aws.amazon.com/cloudwatch/pricing/';

export const AWS_PRICES = {
  lambdaRequest: { usd: 0.2 / 1e6, per: 'request', source: LAMBDA },
  lambdaArmGbSecond: { usd: 0.0000133334, per: 'GB-second, arm64 (first 7.5 billion a month)', source: LAMBDA },
  lambdaX86GbSecond: { usd: 0.0000166667, per: 'GB-second, x86_64 (first 6 billion a month)', source: LAMBDA },
  httpApiRequest: {
    usd: 1.0 / 1e6,
    per: 'HTTP API request of up to 512 KB (first 300 million a month)',
    source: 'https://aws.amazon.com/api-gateway/pricing/',
  },
  dynamoWriteUnit: { usd: 0.625 / 1e6, per: 'write request unit (1 KB)', source: DYNAMODB },
  dynamoReadUnit: {
    usd: 0.125 / 1e6,
    per: 'read request unit (4 KB strongly consistent, 8 KB eventually)',
    source: DYNAMODB,
  },
  dynamoStorageGbMonth: { usd: 0.25, per: 'GB-month of table storage (Standard class)', source: DYNAMODB },
  dynamoPitrGbMonth: { usd: 0.2, per: 'GB-month of continuous backup (PITR)', source: DYNAMODB },
  backupWarmGbMonth: {
    usd: 0.1,
    per: 'GB-month of AWS Backup warm storage for DynamoDB',
    source: 'https://aws.amazon.com/backup/pricing/',
  },
  sqsRequest: {
    usd: 0.4 / 1e6,
    per: 'standard queue request (64 KB chunk)',
    source: 'https://aws.amazon.com/sqs/pricing/',
  },
  cloudFrontRequest: {
    usd: 0.01 / 1e4,
    per: 'HTTPS request, United States / Europe',
    source: 'https://aws.amazon.com/cloudfront/pricing/',
  },
  cloudFrontGbOut: {
    usd: 0.085,
    per: 'GB out to the internet, first 10 TB, United States / Europe',
    source: 'https://aws.amazon.com/cloudfront/pricing/',
  },
  wafWebAcl: { usd: 5, per: 'web ACL-month', source: 'https://aws.amazon.com/waf/pricing/' },
  wafRule: { usd: 1, per: 'rule-month', source: 'https://aws.amazon.com/waf/pricing/' },
  wafRequest: { usd: 0.6 / 1e6, per: 'request inspected', source: 'https://aws.amazon.com/waf/pricing/' },
  logsIngestedGb: { usd: 0.5, per: 'GB of logs ingested (Standard class)', source: CLOUDWATCH },
  logsStoredGbMonth: { usd: 0.03, per: 'GB-month of logs stored (compressed)', source: CLOUDWATCH },
  alarm: { usd: 0.1, per: 'standard-resolution alarm metric-month', source: CLOUDWATCH },
  dashboard: { usd: 3, per: 'dashboard-month', source: CLOUDWATCH },
  customMetric: { usd: 0.3, per: 'custom metric-month (first 10,000)', source: CLOUDWATCH },
  secret: { usd: 0.4, per: 'secret-month', source: 'https://aws.amazon.com/secrets-manager/pricing/' },
} as const satisfies Record<string, AwsPrice>;
