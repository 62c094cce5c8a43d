import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { TABLE } from '@cm/store';

/**
 * The one DynamoDB table, keyed and indexed as `@cm/store` lays it out. It outlives the stack (retained), and
 * deletion protection refuses a delete by anyone, console and API included, until it is turned off.
 */
export function contentTable(scope: Construct): Table {
  const table = new Table(scope, 'Table', {
    partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
    sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: TABLE.ttlAttribute,
    removalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: true,
  });
  for (const index of TABLE.indexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: { name: index.sortKey, type: AttributeType.STRING },
      ...(index.projection === 'all'
        ? { projectionType: ProjectionType.ALL }
        : { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...TABLE.listingAttributes] }),
    });
  }
  return table;
}
