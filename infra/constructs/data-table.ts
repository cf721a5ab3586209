import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_INDEXES, TABLE_KEYS, TABLE_STREAM } from '#shared/store/core/table-definition.ts';

export interface DataTableProps {
  /**
   * What happens to the table (and its data) when it leaves the stack. `RETAIN` also turns on
   * deletion protection, so a prod table survives both a stack delete and a console slip.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The single table (docs/design.md §3.6), built from the same definition the local runtime uses
 * (shared/store/core/table-definition.ts) so the two cannot drift: on-demand, point-in-time recovery,
 * TTL, every GSI projecting ALL, a stream of new images (the event forwarder's source). No physical
 * name: CloudFormation names it and functions get it from `TABLE_NAME`.
 */
export class DataTable extends Construct {
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: DataTableProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const str = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });
    this.table = new dynamodb.TableV2(this, 'Table', {
      partitionKey: str(TABLE_KEYS.partitionKey),
      sortKey: str(TABLE_KEYS.sortKey),
      timeToLiveAttribute: TABLE_KEYS.ttlAttribute,
      dynamoStream: dynamodb.StreamViewType[TABLE_STREAM.viewType],
      billing: dynamodb.Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      globalSecondaryIndexes: TABLE_INDEXES.map((i) => ({
        indexName: i.indexName,
        partitionKey: str(i.partitionKey),
        sortKey: str(i.sortKey),
        projectionType: dynamodb.ProjectionType.ALL,
      })),
      removalPolicy,
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
    });
  }
}
