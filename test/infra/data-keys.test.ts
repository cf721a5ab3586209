import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it, vi } from 'vitest';
import { TABLE_INDEXES, TABLE_KEYS } from '#shared/store/core/table-definition.ts';
import { ROTATE_KEYS_HANDLER } from '../../infra/constructs/key-rotation.ts';
import { arnRef, functionIds, synth } from './support.ts';

// Synthesizing a stack takes seconds, many more on a busy CI machine.
vi.setConfig({ testTimeout: 120_000 });

const { template } = synth({ stage: 'dev' });
const { template: prod } = synth({ stage: 'prod' });

describe('table (docs/design.md §3.6, built from shared/store/core/table-definition.ts)', () => {
  const table = () => Object.values(template.findResources('AWS::DynamoDB::GlobalTable'))[0]!;

  it('on-demand, TTL, point-in-time recovery, no physical name', () => {
    const p = table().Properties;
    expect(p.BillingMode).toBe('PAY_PER_REQUEST');
    expect(p.TimeToLiveSpecification).toEqual({ AttributeName: TABLE_KEYS.ttlAttribute, Enabled: true });
    expect(p.Replicas[0].PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(p.TableName).toBeUndefined();
    expect(p.KeySchema).toEqual([
      { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
    ]);
  });

  it.each(TABLE_INDEXES.map((i) => [i.indexName, i] as const))('GSI %s projects ALL', (_name, index) => {
    expect(table().Properties.GlobalSecondaryIndexes).toContainEqual({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    });
  });

  it('removal policy by stage: dev is destroyed, prod retained with deletion protection', () => {
    expect(table().DeletionPolicy).toBe('Delete');
    prod.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })] }),
    });
  });
});

describe('KMS keys (docs/design.md §4)', () => {
  it('envelope mode: one symmetric key with rotation, no signing key', () => {
    const keys = Object.values(template.findResources('AWS::KMS::Key'));
    expect(keys).toHaveLength(1);
    expect(keys[0]!.Properties).toMatchObject({ EnableKeyRotation: true });
    expect(keys[0]!.Properties.KeySpec).toBeUndefined();
    prod.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Retain' });
  });

  it('kms-sign mode adds an ECC_NIST_P256 SIGN_VERIFY key', () => {
    const { template: t } = synth({ settings: { keyMode: 'kms-sign' } });
    t.resourceCountIs('AWS::KMS::Key', 2);
    t.hasResourceProperties('AWS::KMS::Key', { KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' });
  });
});

describe('key rotation schedule', () => {
  it('an EventBridge rule runs the rotation function daily, with retries', () => {
    const rotation = functionIds(template).get(ROTATE_KEYS_HANDLER)!;
    const [rule] = Object.values(template.findResources('AWS::Events::Rule'));
    expect(rule!.Properties.ScheduleExpression).toBe('rate(1 day)');
    expect(arnRef(rule!.Properties.Targets)).toBe(rotation);
    expect(rule!.Properties.Targets[0].RetryPolicy.MaximumRetryAttempts).toBe(2);
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [rotation, 'Arn'] },
    });
  });

  it('the schedule comes from the stage config', () => {
    const { template: t } = synth({ settings: { rotationSchedule: 'cron(0 3 * * ? *)' } });
    t.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'cron(0 3 * * ? *)' });
  });
});

// Alarms, their topic and the dashboard: test/infra/monitoring.test.ts.
