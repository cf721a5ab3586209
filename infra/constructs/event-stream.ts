import { CfnOutput, Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENT_ITEM_TYPE } from '#shared/store/core/table-definition.ts';
import { BACKGROUND_BUDGET_ENV, type FunctionDefaults, ServiceFunction } from './service-function.ts';

/** The forwarder's handler module: exports `handler` (a DynamoDB stream batch in, batch item failures out). */
export const FORWARD_EVENTS_HANDLER = 'functions/events/forward-events';

/** Stream records per invocation: at most 5 PutEvents calls of 10, each tried twice. */
export const FORWARDER_BATCH_SIZE = 50;

/**
 * 10 calls at EventBridge's worst case (shared/wiring/event-stream.ts EVENTBRIDGE_BUDGET: about 6 s
 * each) is about a minute; the rest is room for a cold start.
 */
export const FORWARDER_TIMEOUT = Duration.seconds(90);

/** How often Lambda retries a batch that failed (or whose items failed) before it gives up on it. */
export const FORWARDER_RETRY_ATTEMPTS = 10;

export interface EventStreamProps {
  readonly stageName: string;
  /** The table, with its stream (shared/store/core/table-definition.ts TABLE_STREAM). */
  readonly table: dynamodb.ITableV2;
  readonly functionDefaults: FunctionDefaults;
  readonly logGroup: logs.ILogGroup;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * Security events to the stage's EventBridge bus through the table's stream, never from the
 * request path (docs/events.md "Streaming: the EventBridge bus"): an event is streamed if and only
 * if its write committed, and a sign-in pays nothing for it. The stream's event source mapping
 * passes only inserted event items (a filter, so no other write invokes the function); the
 * forwarder puts them on the bus and answers the records it could not deliver as batch item
 * failures, which Lambda retries (bisecting a batch that fails as a whole). A batch that still
 * fails after FORWARDER_RETRY_ATTEMPTS, or outlives the stream's 24 hours, is described (shard and
 * sequence numbers, not the records) in a queue the `EventsDiscarded` alarm watches; the events
 * themselves stay in the table, listed by the events API, for the stage's retention.
 */
export class EventStream extends Construct {
  readonly bus: events.EventBus;
  readonly function: ServiceFunction;
  /** The forwarder's own role: the log group, `events:PutEvents` on this bus, the stream's reads, the failure queue. */
  readonly role: iam.Role;
  /** Where Lambda describes the batches it gave up on. */
  readonly failures: sqs.Queue;
  readonly mapping: lambda.EventSourceMapping;

  constructor(scope: Construct, id: string, props: EventStreamProps) {
    super(scope, id);
    const streamArn = props.table.tableStreamArn;
    if (!streamArn)
      throw new Error('The table has no stream: the event forwarder reads it (shared/store/core/table-definition.ts TABLE_STREAM).');

    this.bus = new events.EventBus(this, 'Bus', {
      eventBusName: `identity-service-${props.stageName}`,
      description: `Identity service ${props.stageName}: security events (docs/events.md)`,
    });
    this.bus.applyRemovalPolicy(props.removalPolicy);

    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Identity service event forwarder: the table stream to the stage bus',
    });
    props.logGroup.grantWrite(this.role);
    // Exactly PutEvents on this bus: the forwarder can publish nowhere else.
    this.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['events:PutEvents'], resources: [this.bus.eventBusArn] }));
    // What the event source mapping reads the stream with, on this stream only. Lambda checks all
    // four when the mapping is created (AWS's own example policy scopes ListStreams to the stream too).
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
        resources: [streamArn],
      }),
    );

    this.failures = new sqs.Queue(this, 'Failures', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: props.removalPolicy,
    });

    this.function = new ServiceFunction(this, 'Function', {
      ...props.functionDefaults,
      environment: {
        ...props.functionDefaults.environment,
        ...BACKGROUND_BUDGET_ENV,
        EVENT_BUS_NAME: this.bus.eventBusName,
        // Published at the end of every invocation: the failed sign-ins alarm counts per period.
        METRICS_PUBLISH_SECONDS: '0',
      },
      handlerModule: FORWARD_EVENTS_HANDLER,
      role: this.role,
      timeout: FORWARDER_TIMEOUT,
      memorySize: 256,
    });

    this.mapping = new lambda.EventSourceMapping(this, 'Mapping', {
      target: this.function,
      eventSourceArn: streamArn,
      // From the oldest record still in the stream: nothing written since the stream began is skipped.
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: FORWARDER_BATCH_SIZE,
      maxBatchingWindow: Duration.seconds(1),
      bisectBatchOnError: true,
      retryAttempts: FORWARDER_RETRY_ATTEMPTS,
      reportBatchItemFailures: true,
      // One batch per shard at a time keeps a shard's events in order on the bus.
      parallelizationFactor: 1,
      // SqsDlq also grants the role sqs:SendMessage on the queue.
      onFailure: new SqsDlq(this.failures),
      filters: [
        lambda.FilterCriteria.filter({
          eventName: lambda.FilterRule.isEqual('INSERT'),
          dynamodb: { NewImage: { type: { S: lambda.FilterRule.isEqual(EVENT_ITEM_TYPE) } } },
        }),
      ],
    });
    // The mapping is created (and checked by Lambda) only once the role can read the stream.
    this.mapping.node.addDependency(this.role);

    new CfnOutput(Stack.of(this), 'EventBusName', { value: this.bus.eventBusName, description: 'EventBridge bus of the security events' });
    new CfnOutput(Stack.of(this), 'EventBusArn', { value: this.bus.eventBusArn, description: 'ARN of the security events bus' });
  }
}
