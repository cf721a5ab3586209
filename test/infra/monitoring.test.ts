import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it, vi } from 'vitest';
import { routeGroup } from '#shared/routes/function-groups.ts';
import { handlerModules, ROUTES } from '#shared/routes/route-table.ts';
import { FORWARD_EVENTS_HANDLER } from '../../infra/constructs/event-stream.ts';
import { ROTATE_KEYS_HANDLER } from '../../infra/constructs/key-rotation.ts';
import { FALLBACK_HANDLER } from '../../infra/constructs/route-api.ts';
import { MAX_METRICS_PER_ALARM, TABLE_OPERATIONS } from '../../infra/constructs/service-alarms.ts';
import { BOOTSTRAP_HANDLER } from '../../infra/constructs/stage-bootstrap.ts';
import { fromParent, functionIds, synth } from './support.ts';
import { syntheticRoutes } from './synthetic-routes.ts';

// Synthesizing a stack takes seconds, many more on a busy CI machine.
vi.setConfig({ testTimeout: 120_000 });

type Json = Record<string, any>;

const { template, monitoring } = synth({ stage: 'dev' });
const fnIds = functionIds(template);
/** The parent's logical id a nested-stack value stands for. */
const parentId = (value: unknown) => (fromParent(template, value) as { Ref?: string }).Ref;
const byId = (id: string) =>
  Object.entries(monitoring.findResources('AWS::CloudWatch::Alarm')).find(([k]) => k.startsWith(id))?.[1]?.Properties as Json;
/** The metric filter that publishes a metric. */
const metricFilter = (metricName: string) =>
  Object.values(monitoring.findResources('AWS::Logs::MetricFilter')).find(
    (f) => f.Properties.MetricTransformations[0].MetricName === metricName,
  )!;
/** The metrics an alarm reads: its own, or those of its metric-math expression. */
const metricsOf = (a: Json): Json[] =>
  a.Metrics
    ? a.Metrics.filter((m: Json) => m.MetricStat).map((m: Json) => m.MetricStat.Metric)
    : [{ Namespace: a.Namespace, MetricName: a.MetricName, Dimensions: a.Dimensions }];

/** Alarms and composite alarms that notify: all but the parts a composite alarm joins. */
function notifying(t: typeof monitoring): [string, Json][] {
  const composites = Object.entries(t.findResources('AWS::CloudWatch::CompositeAlarm'));
  const joined = JSON.stringify(composites.map(([, c]) => c.Properties.AlarmRule));
  return [...Object.entries(t.findResources('AWS::CloudWatch::Alarm')).filter(([id]) => !joined.includes(`"${id}"`)), ...composites].map(
    ([id, a]) => [id, a.Properties as Json],
  );
}

describe('alarms (docs/operations.md "Alarms")', () => {
  it('the health function: Errors > 0 and Duration p99 above the stage threshold for 2 periods', () => {
    const health = fnIds.get('functions/health/get-health')!;
    const errors = byId('AlarmsHealthErrors');
    expect(errors).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(parentId(errors.Dimensions[0].Value)).toBe(health);
    const latency = byId('AlarmsHealthLatencyP99');
    expect(latency).toMatchObject({ MetricName: 'Duration', ExtendedStatistic: 'p99', Threshold: 2000, EvaluationPeriods: 2 });
    expect(parentId(latency.Dimensions[0].Value)).toBe(health);
  });

  it('API 5XXError on the stage, threshold from cdk.json', () => {
    const api = byId('AlarmsApi5xx');
    expect(api).toMatchObject({ Namespace: 'AWS/ApiGateway', MetricName: '5XXError', Statistic: 'Sum', Threshold: 5 });
    expect(api.Dimensions.map((d: Json) => d.Name).sort()).toEqual(['ApiName', 'Stage']);
  });

  it('429s counted by a metric filter on the access log (API Gateway has no throttle metric)', () => {
    const filter = metricFilter('Http429');
    expect(filter.Properties.FilterPattern).toBe('{ $.status = "429" }');
    expect(parentId(filter.Properties.LogGroupName)).toMatch(/AccessLogs/);
    expect(byId('AlarmsThrottled')).toMatchObject({
      Namespace: 'IdentityService/dev',
      MetricName: 'Http429',
      Statistic: 'Sum',
      Threshold: 50,
    });
  });

  it('DynamoDB throttles and system errors: the sum over every operation the functions call', () => {
    for (const [id, metricName, threshold] of [
      ['AlarmsDynamoThrottles', 'ThrottledRequests', 10],
      ['AlarmsDynamoSystemErrors', 'SystemErrors', 0],
    ] as const) {
      const a = byId(id);
      expect(a.Threshold).toBe(threshold);
      const metrics = metricsOf(a);
      expect(metrics.map((m) => m.Dimensions.find((d: Json) => d.Name === 'Operation').Value).sort()).toEqual([...TABLE_OPERATIONS].sort());
      for (const m of metrics) {
        expect(m).toMatchObject({ Namespace: 'AWS/DynamoDB', MetricName: metricName });
        expect(parentId(m.Dimensions.find((d: Json) => d.Name === 'TableName').Value)).toMatch(/^DataTable/);
      }
      expect(a.Metrics.find((m: Json) => m.ReturnData !== false).Expression).toContain('+');
    }
  });

  it('KMS errors: a metric filter on every failed KMS call (503 and 500 lines), and its alarm', () => {
    const filter = metricFilter('KmsErrors');
    expect(filter.Properties.FilterPattern).toBe('{ $.detail.dependency = "kms" }');
    expect(parentId(filter.Properties.LogGroupName)).toMatch(/FunctionLogs/);
    expect(byId('AlarmsKmsErrors')).toMatchObject({ Namespace: 'IdentityService/dev', MetricName: 'KmsErrors', Threshold: 0 });
  });

  it('failed key rotation: the rotation function errors plus the schedule failing to invoke it', () => {
    const a = byId('AlarmsKeyRotationFailed');
    expect(a.Threshold).toBe(0);
    const [errors, failed] = ['errors', 'failed'].map((id) => a.Metrics.find((m: Json) => m.Id === id).MetricStat.Metric);
    expect(errors).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Errors' });
    expect(parentId(errors.Dimensions[0].Value)).toBe(fnIds.get(ROTATE_KEYS_HANDLER));
    expect(failed).toMatchObject({ Namespace: 'AWS/Events', MetricName: 'FailedInvocations' });
    expect(parentId(failed.Dimensions[0].Value)).toMatch(/KeyRotationSchedule/);
  });

  it('Lambda errors and throttles per function group cover every function of the stage exactly once', () => {
    const expected = new Map<string, string[]>();
    const add = (group: string, handler: string) => expected.set(group, [...(expected.get(group) ?? []), fnIds.get(handler)!]);
    for (const h of handlerModules()) add(routeGroup(ROUTES.find((r) => r.handler === h)!), h);
    add('gateway', FALLBACK_HANDLER);
    add('background', ROTATE_KEYS_HANDLER);
    add('background', BOOTSTRAP_HANDLER);
    add('background', FORWARD_EVENTS_HANDLER);
    for (const [group, ids] of expected) {
      for (const [kind, metricName] of [
        ['Errors', 'Errors'],
        ['Throttles', 'Throttles'],
      ]) {
        const prefix = `AlarmsFunction${kind}${group[0]!.toUpperCase()}${group.slice(1)}`;
        const parts = Object.entries(monitoring.findResources('AWS::CloudWatch::Alarm')).filter(([k]) => k.startsWith(prefix));
        const watched = parts.flatMap(([, a]) => metricsOf(a.Properties as Json));
        for (const m of watched) expect(m).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: metricName });
        expect(watched.map((m) => parentId(m.Dimensions[0].Value)).sort()).toEqual([...ids].sort());
        for (const [, a] of parts) expect(metricsOf(a.Properties as Json).length).toBeLessThanOrEqual(MAX_METRICS_PER_ALARM);
      }
    }
  });

  it('a group of more than 10 functions: alarms of 10 joined by a composite alarm, which alone notifies', () => {
    const { monitoring: t } = synth({
      stage: 'dev',
      routes: syntheticRoutes(150, 120),
      settings: { alarms: { emails: ['ops@example.com'] } },
    });
    const all = t.findResources('AWS::CloudWatch::Alarm');
    const parts = Object.entries(all).filter(([k]) => /^AlarmsFunctionErrorsManagement\d+/.test(k));
    expect(parts.length).toBeGreaterThan(1);
    for (const [, a] of parts) {
      expect(metricsOf(a.Properties as Json).length).toBeLessThanOrEqual(MAX_METRICS_PER_ALARM);
      expect(a.Properties.AlarmActions).toBeUndefined();
    }
    const [composite] = Object.values(t.findResources('AWS::CloudWatch::CompositeAlarm')).filter((c) =>
      JSON.stringify(c.Properties.AlarmRule).includes('AlarmsFunctionErrorsManagement1'),
    );
    const rule = JSON.stringify(composite!.Properties.AlarmRule);
    for (const [id] of parts) expect(rule).toContain(id);
    const [topic] = Object.keys(t.findResources('AWS::SNS::Topic'));
    expect(composite!.Properties.AlarmActions).toEqual([{ Ref: topic }]);
  });
});

describe('alarm topic (SNS, per stage)', () => {
  it('without recipients in the config the stage still has its topic: every alarm notifies it, its ARN is an output, no subscription yet', () => {
    const topics = Object.keys(monitoring.findResources('AWS::SNS::Topic'));
    expect(topics).toHaveLength(1);
    expect(Object.keys(monitoring.findResources('AWS::SNS::Subscription'))).toHaveLength(0);
    const all = notifying(monitoring);
    expect(all.length).toBeGreaterThanOrEqual(15);
    for (const [, a] of all) expect(a.AlarmActions).toEqual([{ Ref: topics[0] }]);
    const outputs = template.toJSON().Outputs as Json;
    const output = Object.entries(outputs).find(([id]) => id.startsWith('AlarmTopicArn'));
    expect(output?.[1].Description).toBe('SNS topic every alarm of the stage notifies');
  });

  it('a production stage (removalPolicy retain) without recipients gets a synth warning; a throwaway stage or one with recipients does not', () => {
    const warnings = (s: ReturnType<typeof synth>) =>
      Annotations.fromStack(s.stack).findWarning('*', Match.stringLikeRegexp('alarms reach no one'));
    expect(warnings(synth({ stage: 'prod' }))).toHaveLength(1);
    expect(warnings(synth({ stage: 'prod', settings: { alarms: { emails: ['ops@example.com'] } } }))).toHaveLength(0);
    expect(warnings(synth({ stage: 'dev', settings: { removalPolicy: 'destroy' } }))).toHaveLength(0);
  });

  it('e-mail and https subscriptions from the stage config; every alarm and OK transition reaches the topic; TLS only', () => {
    const { monitoring: t } = synth({
      settings: { alarms: { emails: ['ops@example.com'], https: ['https://hooks.example.com/alarms/'] } },
    });
    const [topic] = Object.keys(t.findResources('AWS::SNS::Topic'));
    t.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: { Ref: topic } });
    t.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'https',
      Endpoint: 'https://hooks.example.com/alarms/',
      TopicArn: { Ref: topic },
    });
    const all = notifying(t);
    expect(all.length).toBeGreaterThanOrEqual(15);
    for (const [, a] of all) {
      expect(a.AlarmActions).toEqual([{ Ref: topic }]);
      expect(a.OKActions).toEqual([{ Ref: topic }]);
    }
    const [policy] = Object.values(t.findResources('AWS::SNS::TopicPolicy'));
    expect(policy!.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  it('an existing topic by ARN: no topic made, alarms notify it', () => {
    const arn = 'arn:aws:sns:eu-west-1:123456789012:oncall';
    const { monitoring: t } = synth({ settings: { alarms: { topicArn: arn, emails: ['ignored@example.com'] } } });
    expect(Object.keys(t.findResources('AWS::SNS::Topic'))).toHaveLength(0);
    for (const [, a] of notifying(t)) expect(a.AlarmActions).toEqual([arn]);
  });

  it('refuses an http:// subscription', () => {
    expect(() => synth({ settings: { alarms: { https: ['http://hooks.example.com/x'] } } })).toThrow(
      /alarms\.https\.0: must be an https:\/\/ URL/,
    );
  });
});

describe('dashboard (one per stage)', () => {
  const dashboards = Object.values(monitoring.findResources('AWS::CloudWatch::Dashboard'));
  const body = () => JSON.stringify(dashboards[0]!.Properties.DashboardBody);

  it('shows every alarm, the API, function groups, DynamoDB and KMS', () => {
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0]!.Properties.DashboardName).toBe('IdentityService-dev');
    for (const title of [
      'Alarms',
      'Requests and errors',
      'Latency (p50, p99)',
      'Function errors by group',
      'Function throttles by group',
      'DynamoDB throttled requests',
      'DynamoDB system errors',
      '429s, dependency timeouts, KMS errors',
    ]) {
      expect(body()).toContain(title);
    }
    for (const [id] of notifying(monitoring)) expect(body()).toContain(id);
    // dev has no WAF: no WAF graph.
    expect(body()).not.toContain('AWS/WAFV2');
  });

  it('a stage with the WAF graphs its blocked requests', () => {
    const { monitoring: t } = synth({ stage: 'prod' });
    const [d] = Object.values(t.findResources('AWS::CloudWatch::Dashboard'));
    expect(JSON.stringify(d!.Properties.DashboardBody)).toContain('BlockedRequests');
    expect(JSON.stringify(d!.Properties.DashboardBody)).toContain('IdentityService-prod-WebAcl');
  });
});
