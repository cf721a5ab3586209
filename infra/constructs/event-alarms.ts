import type { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** Thresholds of the event alarms (infra/stages.ts `alarms`). */
export interface EventAlarmThresholds {
  /** Failed sign-ins of the busiest tenant per period. */
  readonly failedSignInsPerTenant: number;
  /** Age (seconds) of the oldest stream record the forwarder has not yet handled. */
  readonly eventsIteratorAgeSeconds: number;
}

export interface EventAlarmsProps {
  readonly forwarder: lambda.IFunction;
  /** The event source mapping's on-failure queue. */
  readonly failures: sqs.IQueue;
  /** Where the functions publish their own metrics, and their `service` dimension. */
  readonly serviceMetrics: { readonly namespace: string; readonly service: string };
  readonly thresholds: EventAlarmThresholds;
  readonly period: Duration;
  readonly topic?: sns.ITopic | undefined;
}

/**
 * A CloudWatch Metrics Insights query over the forwarder's `SignInsFailed` by tenant
 * (shared/observability/service-metrics.ts), the busiest `limit` tenants first.
 */
export function failedSignInsQuery(namespace: string, limit: number): string {
  return `SELECT SUM(SignInsFailed) FROM SCHEMA("${namespace}", service, tenant_id) GROUP BY tenant_id ORDER BY SUM() DESC LIMIT ${limit}`;
}

/**
 * The security events' alarms (docs/events.md "Alarms and dashboard", docs/operations.md "Alarms"):
 * events the forwarder could not deliver, a forwarder falling behind the stream, batches Lambda gave
 * up on, and the example of a security alarm: a burst of failed sign-ins in one tenant, whichever
 * tenant it is (a Metrics Insights query: the busiest tenant's count per period, so one alarm
 * covers every tenant, including those created after the deploy).
 */
export class EventAlarms extends Construct {
  readonly alarms: readonly cloudwatch.Alarm[];
  readonly failedSignIns: cloudwatch.Alarm;
  /** The top tenants' failed sign-ins, for the dashboard. */
  readonly topTenantsWidget: cloudwatch.GraphWidget;

  constructor(scope: Construct, id: string, props: EventAlarmsProps) {
    super(scope, id);
    const { period, thresholds: t, serviceMetrics: m } = props;
    const sum = { statistic: cloudwatch.Stats.SUM, period };
    const alarm = (alarmId: string, description: string, metric: cloudwatch.IMetric, threshold: number) =>
      new cloudwatch.Alarm(this, alarmId, {
        alarmDescription: description,
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });

    const deliveryFailed = alarm(
      'EventsDeliveryFailed',
      'Security events the forwarder could not put on the EventBridge bus after its retry; Lambda delivers them again (docs/events.md).',
      new cloudwatch.Metric({ namespace: m.namespace, metricName: 'EventsDeliveryFailed', dimensionsMap: { service: m.service }, ...sum }),
      0,
    );
    const iteratorAge = alarm(
      'EventsIteratorAge',
      'The event forwarder is behind the table stream: events reach the bus late, and are lost from the stream after 24 hours (docs/events.md).',
      props.forwarder.metric('IteratorAge', { statistic: cloudwatch.Stats.MAXIMUM, period }),
      t.eventsIteratorAgeSeconds * 1000,
    );
    const discarded = alarm(
      'EventsDiscarded',
      'Lambda gave up on stream batches of the event forwarder: their events are in the table but not on the bus; the queue message names the records (docs/events.md).',
      props.failures.metricApproximateNumberOfMessagesVisible({ statistic: cloudwatch.Stats.MAXIMUM, period }),
      0,
    );
    this.failedSignIns = alarm(
      'FailedSignInsPerTenant',
      `More than ${t.failedSignInsPerTenant} failed sign-ins in one tenant within a period: a password-guessing burst? The alarm's query names the tenant (docs/events.md).`,
      new cloudwatch.MathExpression({ expression: failedSignInsQuery(m.namespace, 1), usingMetrics: {}, label: 'Busiest tenant', period }),
      t.failedSignInsPerTenant,
    );
    this.alarms = [deliveryFailed, iteratorAge, discarded, this.failedSignIns];
    if (props.topic) {
      const action = new actions.SnsAction(props.topic);
      for (const a of this.alarms) {
        a.addAlarmAction(action);
        a.addOkAction(action);
      }
    }

    this.topTenantsWidget = new cloudwatch.GraphWidget({
      title: 'Failed sign-ins, top 10 tenants',
      left: [new cloudwatch.MathExpression({ expression: failedSignInsQuery(m.namespace, 10), usingMetrics: {}, label: '', period })],
      leftAnnotations: [{ value: t.failedSignInsPerTenant, label: 'alarm threshold' }],
      width: 12,
      height: 6,
    });
  }
}
