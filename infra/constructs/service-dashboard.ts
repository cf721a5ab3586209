import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { CACHES } from '#shared/observability/service-metrics.ts';
import { type ServiceAlarms, TABLE_OPERATIONS } from './service-alarms.ts';

export interface ServiceDashboardProps {
  readonly stageName: string;
  readonly stage: apigw.Stage;
  readonly alarms: ServiceAlarms;
  readonly healthFunction: lambda.IFunction;
  readonly tokenFunction?: lambda.IFunction | undefined;
  readonly table: dynamodb.ITableV2;
  /** The WAF web ACL's metric name (`WebACL` dimension), when the stage has one. */
  readonly webAclMetricName?: string | undefined;
  /** @default Duration.minutes(5) */
  readonly period?: Duration;
  /** Where the functions publish their own metrics (`POWERTOOLS_METRICS_NAMESPACE`), and their `service` dimension. */
  readonly serviceMetrics: { readonly namespace: string; readonly service: string };
}

/** The caches whose hits and misses the functions count. */
const CACHE_NAMES = Object.keys(CACHES) as (keyof typeof CACHES)[];

/**
 * One CloudWatch dashboard per stage (docs/operations.md "Dashboard"): alarm states first, then the
 * API's traffic, errors and latency, the functions per group, DynamoDB, KMS and the WAF.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const period = props.period ?? Duration.minutes(5);
    const sum = { statistic: cloudwatch.Stats.SUM, period };
    const { stage, alarms } = props;
    const graph = (title: string, left: cloudwatch.IMetric[], width = 8) => new cloudwatch.GraphWidget({ title, left, width, height: 6 });
    const groupSum = (kind: 'errors' | 'throttles') =>
      [...alarms.functionGroupMetrics].map(([group, m], g) => {
        // Ids are unique across the graph's expressions (CloudWatch requires it).
        const id = (i: number) => `${kind[0]}${g}_${i}`;
        return new cloudwatch.MathExpression({
          expression: `SUM([${m[kind].map((_, i) => id(i)).join(',')}])`,
          usingMetrics: Object.fromEntries(m[kind].map((metric, i) => [id(i), metric])),
          label: group,
          period,
        });
      });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      // A name operators can find; one per stage, so unique in the account and region like the stack.
      dashboardName: `IdentityService-${props.stageName}`,
      defaultInterval: Duration.hours(3),
      widgets: [
        [new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...alarms.alarms], width: 24, height: 4 })],
        [
          graph('Requests and errors', [stage.metricCount(sum), stage.metricClientError(sum), stage.metricServerError(sum)]),
          graph('Latency (p50, p99)', [
            stage.metricLatency({ period, statistic: cloudwatch.Stats.p(50) }),
            stage.metricLatency({ period, statistic: cloudwatch.Stats.p(99) }),
            stage.metricIntegrationLatency({ period, statistic: cloudwatch.Stats.p(99) }),
          ]),
          graph('429s, dependency timeouts, KMS errors', [
            alarms.throttledMetric,
            ...alarms.dependencyTimeoutMetrics.values(),
            alarms.kmsErrorsMetric,
          ]),
        ],
        [
          graph('Function errors by group', groupSum('errors')),
          graph('Function throttles by group', groupSum('throttles')),
          graph('Health and token duration (p99)', [
            props.healthFunction.metricDuration({ period, statistic: cloudwatch.Stats.p(99) }),
            ...(props.tokenFunction ? [props.tokenFunction.metricDuration({ period, statistic: cloudwatch.Stats.p(99) })] : []),
          ]),
        ],
        this.serviceMetricsRow(props.serviceMetrics, period),
        [
          // One expression per graph: both name their metrics after the operations.
          graph('DynamoDB throttled requests', [
            props.table.metricThrottledRequestsForOperations({ operations: [...TABLE_OPERATIONS], period }),
          ]),
          graph('DynamoDB system errors', [props.table.metricSystemErrorsForOperations({ operations: [...TABLE_OPERATIONS], period })]),
          graph('DynamoDB consumed capacity', [
            props.table.metricConsumedReadCapacityUnits(sum),
            props.table.metricConsumedWriteCapacityUnits(sum),
          ]),
        ],
        ...(props.webAclMetricName
          ? [
              [
                graph(
                  'WAF blocked and allowed requests',
                  ['BlockedRequests', 'AllowedRequests'].map(
                    (metricName) =>
                      new cloudwatch.Metric({
                        namespace: 'AWS/WAFV2',
                        metricName,
                        dimensionsMap: { WebACL: props.webAclMetricName!, Rule: 'ALL', Region: stage.stack.region },
                        ...sum,
                      }),
                  ),
                  24,
                ),
              ],
            ]
          : []),
      ],
    });
  }

  /**
   * The functions' own metrics (docs/operations.md "Metrics and traces"): SEARCH expressions draw a
   * line per dimension value (grant type, route group, function) as they appear.
   */
  private serviceMetricsRow(m: ServiceDashboardProps['serviceMetrics'], period: Duration): cloudwatch.IWidget[] {
    const seconds = period.toSeconds();
    const search = (label: string, dimension: string, metricName: string) =>
      new cloudwatch.MathExpression({
        expression: `SEARCH('{${m.namespace},${dimension},service} MetricName="${metricName}" service="${m.service}"', 'Sum', ${seconds})`,
        label,
        usingMetrics: {},
        period,
      });
    const count = (metricName: string, cache: string) =>
      new cloudwatch.Metric({ namespace: m.namespace, metricName, dimensionsMap: { cache, service: m.service }, statistic: 'Sum', period });
    const graph = (title: string, left: cloudwatch.IMetric[], leftYAxis?: cloudwatch.YAxisProps) =>
      new cloudwatch.GraphWidget({ title, left, width: 6, height: 6, ...(leftYAxis ? { leftYAxis } : {}) });
    return [
      graph('Tokens issued by grant', [search('TokensIssued', 'grant_type', 'TokensIssued')]),
      graph('Failed logins, 429s and 503s by route group', [
        search('LoginsFailed', 'reason', 'LoginsFailed'),
        search('Throttled', 'route_group', 'Throttled'),
        search('ServiceUnavailable', 'route_group', 'ServiceUnavailable'),
      ]),
      graph(
        'Cache hit ratio (%)',
        CACHE_NAMES.map(
          (cache, i) =>
            new cloudwatch.MathExpression({
              expression: `100 * h${i} / (h${i} + m${i})`,
              usingMetrics: { [`h${i}`]: count('CacheHit', cache), [`m${i}`]: count('CacheMiss', cache) },
              label: cache,
              period,
            }),
        ),
        { min: 0, max: 100 },
      ),
      graph('Cold starts by function', [search('ColdStart', 'function_name', 'ColdStart')]),
    ];
  }
}
