import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it, vi } from 'vitest';
import { ROUTES } from '#shared/routes/route-table.ts';
import { FORWARD_EVENTS_HANDLER, FORWARDER_BATCH_SIZE, FORWARDER_RETRY_ATTEMPTS } from '../../infra/constructs/event-stream.ts';
import { actionsOf, allTemplates, functionIds, roleStatements, type Statement, synth } from './support.ts';

// Synthesizing a stack takes seconds, many more on a busy CI machine.
vi.setConfig({ testTimeout: 180_000 });

type Json = Record<string, any>;

/** The one resource of a type in a template: its logical id and properties. */
function only(resources: Record<string, Json>): [string, Json] {
  const entries = Object.entries(resources);
  expect(entries).toHaveLength(1);
  return [entries[0]![0], entries[0]![1].Properties];
}

const mentionsEvents = (s: Statement) => actionsOf([s]).some((a) => a.startsWith('events:'));

describe('the table stream to the stage bus (docs/events.md "Streaming: the EventBridge bus")', () => {
  const dev = synth({ stage: 'dev' });
  const t = dev.template;
  const [busId, bus] = only(t.findResources('AWS::Events::EventBus'));
  const [tableId] = only(t.findResources('AWS::DynamoDB::GlobalTable'));
  const forwarderId = functionIds(t).get(FORWARD_EVENTS_HANDLER)!;
  const forwarder = t.toJSON().Resources[forwarderId].Properties as Json;
  const roleId = forwarder.Role['Fn::GetAtt'][0] as string;

  it('one bus per stage, named after it', () => {
    expect(bus.Name).toBe('identity-service-dev');
    t.hasOutput('EventBusName', { Value: { Ref: busId } });
  });

  it('the table streams new images (a stream is added to an existing table in place)', () => {
    t.hasResourceProperties('AWS::DynamoDB::GlobalTable', { StreamSpecification: { StreamViewType: 'NEW_IMAGE' } });
  });

  it('the forwarder reads the stream through a mapping that passes only inserted event items, and reports item failures', () => {
    const [, mapping] = only(t.findResources('AWS::Lambda::EventSourceMapping'));
    const [queueId] = only(t.findResources('AWS::SQS::Queue'));
    expect(mapping).toEqual({
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      FunctionName: { Ref: forwarderId },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: FORWARDER_BATCH_SIZE,
      MaximumBatchingWindowInSeconds: 1,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: FORWARDER_RETRY_ATTEMPTS,
      ParallelizationFactor: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
      FilterCriteria: { Filters: [{ Pattern: expect.any(String) }] },
      Tags: expect.any(Array),
    });
    expect(JSON.parse(mapping.FilterCriteria.Filters[0].Pattern)).toEqual({
      eventName: ['INSERT'],
      dynamodb: { NewImage: { type: { S: ['Event'] } } },
    });
  });

  it('the failure queue is encrypted and TLS-only', () => {
    t.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
    t.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('the forwarder is no route: no API method invokes it', () => {
    expect(ROUTES.some((r) => r.handler === FORWARD_EVENTS_HANDLER)).toBe(false);
    const permissions = Object.values(t.findResources('AWS::Lambda::Permission')).map((p) => p.Properties);
    expect(permissions.filter((p) => JSON.stringify(p.FunctionName).includes(forwarderId))).toEqual([]);
  });

  it('the forwarder knows its bus and publishes its counts at the end of every invocation', () => {
    expect(forwarder.Environment.Variables).toMatchObject({ EVENT_BUS_NAME: { Ref: busId }, METRICS_PUBLISH_SECONDS: '0' });
    expect(forwarder.Handler).toBe('index.handler');
  });

  it("the forwarder's role: exactly events:PutEvents on that bus, the stream's reads on that stream, the failure queue, its logs", () => {
    const statements = roleStatements(t, roleId);
    expect(statements.filter(mentionsEvents)).toEqual([
      { Action: 'events:PutEvents', Effect: 'Allow', Resource: { 'Fn::GetAtt': [busId, 'Arn'] } },
    ]);
    const dynamo = statements.filter((s) => actionsOf([s]).some((a) => a.startsWith('dynamodb:')));
    expect(dynamo).toEqual([
      {
        Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      },
    ]);
    // The rest: its log group, X-Ray (tracing on), and the failure queue Lambda writes to.
    expect(statements).toHaveLength(5);
    expect(statements).toEqual(
      expect.arrayContaining([
        {
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Effect: 'Allow',
          Resource: { 'Fn::GetAtt': [expect.stringMatching(/^FunctionLogs/), 'Arn'] },
        },
        { Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Effect: 'Allow', Resource: '*' },
        {
          Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
          Effect: 'Allow',
          Resource: { 'Fn::GetAtt': [expect.stringMatching(/^EventsFailures/), 'Arn'] },
        },
      ]),
    );
  });

  it('no other role may put events anywhere', () => {
    for (const template of allTemplates(dev)) {
      for (const id of Object.keys(template.findResources('AWS::IAM::Role'))) {
        if (id === roleId && template === t) continue;
        expect(roleStatements(template, id).filter(mentionsEvents)).toEqual([]);
      }
    }
  });

  it('every function keeps events for the stage retention: 30 days by default', () => {
    const fns = allTemplates(dev).flatMap((tpl) => Object.values(tpl.findResources('AWS::Lambda::Function')));
    expect(fns.length).toBeGreaterThan(5);
    for (const fn of fns) expect(fn.Properties.Environment.Variables.EVENTS_RETENTION_DAYS).toBe('30');
  });
});

describe('alarms and dashboard (docs/events.md "Alarms and dashboard")', () => {
  const prod = synth({
    stage: 'prod',
    settings: { eventsRetentionDays: 90, alarms: { failedSignInsPerTenant: 7, eventsIteratorAgeSeconds: 120 } },
  });
  const m = prod.monitoring;
  const alarms = Object.values(m.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties as Json);
  const alarm = (name: string) => {
    const found = alarms.filter((a) => JSON.stringify(a.AlarmDescription).length > 0 && JSON.stringify(a).includes(name));
    return found;
  };

  it('the stage setting sets EVENTS_RETENTION_DAYS on every function', () => {
    const fns = allTemplates(prod).flatMap((tpl) => Object.values(tpl.findResources('AWS::Lambda::Function')));
    for (const fn of fns) expect(fn.Properties.Environment.Variables.EVENTS_RETENTION_DAYS).toBe('90');
  });

  it('delivery failures > 0 alarm, on the forwarder metric', () => {
    const [a] = alarm('"EventsDeliveryFailed"');
    expect(a).toMatchObject({
      MetricName: 'EventsDeliveryFailed',
      Namespace: 'IdentityService/prod',
      Dimensions: [{ Name: 'service', Value: 'identity-service' }],
      Statistic: 'Sum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(a!.AlarmActions).toHaveLength(1);
  });

  it("iterator age alarm at the stage's seconds, and the failure queue's messages", () => {
    expect(alarm('"IteratorAge"')[0]).toMatchObject({ MetricName: 'IteratorAge', Statistic: 'Maximum', Threshold: 120_000 });
    expect(alarm('"ApproximateNumberOfMessagesVisible"')[0]).toMatchObject({ Namespace: 'AWS/SQS', Threshold: 0 });
  });

  it('failed sign-ins per tenant: a Metrics Insights query grouped by tenant, the busiest one against the stage threshold', () => {
    const [a] = alarm('SignInsFailed');
    expect(a!.Threshold).toBe(7);
    expect(a!.ComparisonOperator).toBe('GreaterThanThreshold');
    expect(a!.Metrics).toEqual([
      {
        Id: expect.any(String),
        Label: 'Busiest tenant',
        Expression:
          'SELECT SUM(SignInsFailed) FROM SCHEMA("IdentityService/prod", service, tenant_id) GROUP BY tenant_id ORDER BY SUM() DESC LIMIT 1',
        Period: 300,
        ReturnData: true,
      },
    ]);
  });

  it('the dashboard shows the top 10 tenants by failed sign-ins and the event alarms', () => {
    const [d] = Object.values(m.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(d!.Properties.DashboardBody);
    expect(body).toContain('Failed sign-ins, top 10 tenants');
    expect(body).toContain('GROUP BY tenant_id ORDER BY SUM() DESC LIMIT 10');
    expect(body).toContain('Security events');
  });
});
