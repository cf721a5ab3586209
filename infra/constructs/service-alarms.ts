import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { FunctionGroup } from '../../shared/routes.ts';

export interface ServiceAlarmsProps {
  /** The API stage whose 5XX responses are watched. */
  readonly stage: apigw.Stage;
  /** The stage's access log group (JSON lines with `status`, see RouteApi). */
  readonly accessLogs: logs.ILogGroup;
  /** The functions' log group: the handlers' `dependency unavailable` lines (shared/http/http-handler.ts). */
  readonly functionLogs: logs.ILogGroup;
  /** Route groups that get a dependency-timeout alarm each. */
  readonly functionGroups: readonly FunctionGroup[];
  /** Dependency timeouts per group and period above which its alarm fires. @default 5 */
  readonly dependencyTimeouts?: number;
  /** The health endpoint's function: errors there mean the service itself is unwell. */
  readonly healthFunction: lambda.IFunction;
  /** @default 1000 */
  readonly healthP99Ms?: number;
  /** 5XX responses per period above which the alarm fires. @default 0 */
  readonly serverErrors?: number;
  /** 429 responses per period above which the alarm fires. @default 10 */
  readonly throttled?: number;
  /** @default Duration.minutes(5) */
  readonly period?: Duration;
  /**
   * Namespace of the 429 metric; give each stage its own when several share an account.
   * @default 'IdentityService'
   */
  readonly metricNamespace?: string;
  /** @default - alarms change state without notifying anyone */
  readonly topic?: sns.ITopic;
}

/**
 * The stage's alarms (docs/deploy.md lists what each watches). Throttles: API Gateway publishes
 * no throttle metric and `4XXError` mixes 429 with every 400/401/404, so a metric filter on the
 * access log counts `status = 429` exactly: gateway throttles and the application's own 429s.
 * All alarms treat missing data as not breaching: no traffic is not an incident.
 */
export class ServiceAlarms extends Construct {
  readonly alarms: readonly cloudwatch.Alarm[];
  /** Count of 429 responses, from the access log. */
  readonly throttledMetric: cloudwatch.IMetric;
  /** Dependency timeouts (DynamoDB, KMS, or the function's own) by route group, from the function logs. */
  readonly dependencyTimeoutMetrics: ReadonlyMap<FunctionGroup, cloudwatch.IMetric>;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const period = props.period ?? Duration.minutes(5);
    const filter = new logs.MetricFilter(this, 'Http429', {
      logGroup: props.accessLogs,
      filterPattern: logs.FilterPattern.stringValue('$.status', '=', '429'),
      metricNamespace: props.metricNamespace ?? 'IdentityService',
      metricName: 'Http429',
      metricValue: '1',
    });
    this.throttledMetric = filter.metric({ statistic: cloudwatch.Stats.SUM, period });

    // One filter for every group: the log line names its group, which becomes the dimension.
    const namespace = props.metricNamespace ?? 'IdentityService';
    new logs.MetricFilter(this, 'DependencyTimeouts', {
      logGroup: props.functionLogs,
      filterPattern: logs.FilterPattern.all(
        logs.FilterPattern.stringValue('$.message', '=', 'dependency unavailable'),
        logs.FilterPattern.booleanValue('$.timeout', true),
      ),
      metricNamespace: namespace,
      metricName: 'DependencyTimeouts',
      metricValue: '1',
      dimensions: { FunctionGroup: '$.function_group' },
    });
    this.dependencyTimeoutMetrics = new Map(
      props.functionGroups.map((group) => [
        group,
        new cloudwatch.Metric({
          namespace,
          metricName: 'DependencyTimeouts',
          dimensionsMap: { FunctionGroup: group },
          statistic: cloudwatch.Stats.SUM,
          period,
        }),
      ]),
    );

    const alarm = (alarmId: string, description: string, metric: cloudwatch.IMetric, threshold: number, evaluationPeriods = 1) =>
      new cloudwatch.Alarm(this, alarmId, {
        alarmDescription: description,
        metric,
        threshold,
        evaluationPeriods,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });

    this.alarms = [
      alarm(
        'HealthErrors',
        'The health function failed (unhandled error or timeout).',
        props.healthFunction.metricErrors({ period, statistic: cloudwatch.Stats.SUM }),
        0,
      ),
      // Two periods: one slow cold start in a quiet period should not page anyone.
      alarm(
        'HealthLatencyP99',
        'The health function is slow at p99 (DynamoDB or cold starts).',
        props.healthFunction.metricDuration({ period, statistic: cloudwatch.Stats.p(99) }),
        props.healthP99Ms ?? 1000,
        2,
      ),
      alarm(
        'Api5xx',
        'The API answered 5XX (function errors, timeouts, dependency outages).',
        props.stage.metricServerError({ period, statistic: cloudwatch.Stats.SUM }),
        props.serverErrors ?? 0,
      ),
      alarm(
        'Throttled',
        'The API answered 429 (gateway throttles and application rate limits).',
        this.throttledMetric,
        props.throttled ?? 10,
      ),
      ...[...this.dependencyTimeoutMetrics].map(([group, metric]) =>
        alarm(
          `DependencyTimeouts${group[0]!.toUpperCase()}${group.slice(1)}`,
          `The ${group} functions answered 503 because a dependency (DynamoDB, KMS) timed out (docs/operations.md).`,
          metric,
          props.dependencyTimeouts ?? 5,
        ),
      ),
    ];
    if (props.topic) {
      const action = new actions.SnsAction(props.topic);
      for (const a of this.alarms) {
        a.addAlarmAction(action);
        a.addOkAction(action);
      }
    }
  }
}
