import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

/**
 * The stage's namespace of the log-derived metrics (429s, dependency timeouts, KMS errors) and of
 * the functions' own (shared/observability/service-metrics.ts: tokens issued, failed logins, caches).
 */
export const metricNamespace = (stageName: string) => `IdentityService/${stageName}`;

/** CloudWatch alarms on metric math take at most 10 metrics (a hard limit). */
export const MAX_METRICS_PER_ALARM = 10;

/** Operations the functions call (shared/store): what the DynamoDB throttle and system-error alarms sum. */
export const TABLE_OPERATIONS: readonly dynamodb.Operation[] = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.BATCH_WRITE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
  dynamodb.Operation.TRANSACT_GET_ITEMS,
];

/** Thresholds (per period) of a stage's alarms; infra/stages.ts documents each. */
export interface AlarmThresholds {
  readonly healthP99Ms: number;
  readonly serverErrors: number;
  readonly throttled: number;
  readonly dependencyTimeouts: number;
  readonly functionErrors: number;
  readonly functionThrottles: number;
  readonly dynamoThrottles: number;
  readonly dynamoSystemErrors: number;
  readonly kmsErrors: number;
}

export const DEFAULT_THRESHOLDS: AlarmThresholds = {
  healthP99Ms: 1000,
  serverErrors: 0,
  throttled: 10,
  dependencyTimeouts: 5,
  functionErrors: 0,
  functionThrottles: 0,
  dynamoThrottles: 10,
  dynamoSystemErrors: 0,
  kmsErrors: 0,
};

export interface ServiceAlarmsProps {
  /** The API stage whose 5XX responses are watched. */
  readonly stage: apigw.Stage;
  /** The stage's access log group (JSON lines with `status`, see RouteApi). */
  readonly accessLogs: logs.ILogGroup;
  /** The functions' log group: the handlers' `dependency unavailable` / `unhandled error` lines (shared/http/http-handler.ts). */
  readonly functionLogs: logs.ILogGroup;
  /** Every function by group (`oauth`, `management`, `health`, `gateway`, `background`): errors and throttles alarm per group. */
  readonly functionGroups: ReadonlyMap<string, readonly lambda.IFunction[]>;
  /** Route groups that get a dependency-timeout alarm each. */
  readonly routeGroups: readonly string[];
  /** The health endpoint's function: errors there mean the service itself is unwell. */
  readonly healthFunction: lambda.IFunction;
  readonly table: dynamodb.ITableV2;
  /** The scheduled key rotation: its function's errors and the schedule's failed invocations. */
  readonly rotation: { readonly function: lambda.IFunction; readonly rule: events.IRule };
  /** @default DEFAULT_THRESHOLDS */
  readonly thresholds?: Partial<AlarmThresholds>;
  /** @default Duration.minutes(5) */
  readonly period?: Duration;
  /**
   * Namespace of the log-derived metrics; give each stage its own when several share an account.
   * @default 'IdentityService'
   */
  readonly metricNamespace?: string;
  /** @default - alarms change state without notifying anyone */
  readonly topic?: sns.ITopic;
}

const title = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The stage's alarms (docs/operations.md "Alarms" says what to do for each). Throttles: API Gateway
 * publishes no throttle metric and `4XXError` mixes 429 with every 400/401/404, so a metric filter
 * on the access log counts `status = 429` exactly. Lambda errors and throttles are watched per
 * function group: a group of more than 10 functions is split into alarms of 10 (CloudWatch's
 * metric-math limit) joined by a composite alarm, which alone notifies. All alarms treat missing
 * data as not breaching: no traffic is not an incident.
 */
export class ServiceAlarms extends Construct {
  /** Every alarm that notifies the topic. */
  readonly alarms: readonly cloudwatch.AlarmBase[];
  /** Count of 429 responses, from the access log. */
  readonly throttledMetric: cloudwatch.IMetric;
  /** Dependency timeouts (DynamoDB, KMS, or the function's own) by route group, from the function logs. */
  readonly dependencyTimeoutMetrics: ReadonlyMap<string, cloudwatch.IMetric>;
  /** KMS calls that failed (503 after retries, or a 500 for a refused or disabled key), from the function logs. */
  readonly kmsErrorsMetric: cloudwatch.IMetric;
  /** Errors and throttles of each function group, for the dashboard. */
  readonly functionGroupMetrics: ReadonlyMap<string, { errors: cloudwatch.IMetric[]; throttles: cloudwatch.IMetric[] }>;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const t = { ...DEFAULT_THRESHOLDS, ...props.thresholds };
    const period = props.period ?? Duration.minutes(5);
    const namespace = props.metricNamespace ?? 'IdentityService';
    const sum = { statistic: cloudwatch.Stats.SUM, period };
    const alarm = (alarmId: string, description: string, metric: cloudwatch.IMetric, threshold: number, evaluationPeriods = 1) =>
      new cloudwatch.Alarm(this, alarmId, {
        alarmDescription: description,
        metric,
        threshold,
        evaluationPeriods,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });

    const http429 = new logs.MetricFilter(this, 'Http429', {
      logGroup: props.accessLogs,
      filterPattern: logs.FilterPattern.stringValue('$.status', '=', '429'),
      metricNamespace: namespace,
      metricName: 'Http429',
      metricValue: '1',
    });
    this.throttledMetric = http429.metric(sum);

    // One filter for every group: the log line names its group, which becomes the dimension.
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
      props.routeGroups.map((group) => [
        group,
        new cloudwatch.Metric({ namespace, metricName: 'DependencyTimeouts', dimensionsMap: { FunctionGroup: group }, ...sum }),
      ]),
    );

    // KMS publishes no error metrics of its own; every failed KMS call is logged with
    // `detail.dependency = "kms"` (shared/keys/translate-kms-error.ts): 503s and 500s alike.
    const kmsErrors = new logs.MetricFilter(this, 'KmsErrorsFilter', {
      logGroup: props.functionLogs,
      filterPattern: logs.FilterPattern.stringValue('$.detail.dependency', '=', 'kms'),
      metricNamespace: namespace,
      metricName: 'KmsErrors',
      metricValue: '1',
    });
    this.kmsErrorsMetric = kmsErrors.metric(sum);

    const health = [
      alarm('HealthErrors', 'The health function failed (unhandled error or timeout).', props.healthFunction.metricErrors(sum), 0),
      // Two periods: one slow cold start in a quiet period should not page anyone.
      alarm(
        'HealthLatencyP99',
        'The health function is slow at p99 (DynamoDB or cold starts).',
        props.healthFunction.metricDuration({ period, statistic: cloudwatch.Stats.p(99) }),
        t.healthP99Ms,
        2,
      ),
    ];
    const api = [
      alarm(
        'Api5xx',
        'The API answered 5XX (function errors, timeouts, dependency outages).',
        props.stage.metricServerError(sum),
        t.serverErrors,
      ),
      alarm('Throttled', 'The API answered 429 (gateway throttles and application rate limits).', this.throttledMetric, t.throttled),
    ];
    const timeouts = [...this.dependencyTimeoutMetrics].map(([group, metric]) =>
      alarm(
        `DependencyTimeouts${title(group)}`,
        `The ${group} functions answered 503 because a dependency (DynamoDB, KMS) timed out (docs/operations.md).`,
        metric,
        t.dependencyTimeouts,
      ),
    );
    const table = [
      alarm(
        'DynamoThrottles',
        'DynamoDB throttled requests to the table or its indexes (hot partition, account or table limits).',
        props.table.metricThrottledRequestsForOperations({ operations: [...TABLE_OPERATIONS], period }),
        t.dynamoThrottles,
      ),
      alarm(
        'DynamoSystemErrors',
        'DynamoDB answered 500s (a DynamoDB-side problem; the SDK retried).',
        props.table.metricSystemErrorsForOperations({ operations: [...TABLE_OPERATIONS], period }),
        t.dynamoSystemErrors,
      ),
    ];
    const kms = alarm(
      'KmsErrors',
      'KMS calls failed: throttled or unavailable (503s) or refused, disabled or pending-deletion key (500s).',
      this.kmsErrorsMetric,
      t.kmsErrors,
    );
    const rotationFailed = alarm(
      'KeyRotationFailed',
      'Signing-key rotation failed: the rotation function errored or the schedule could not invoke it (docs/keys.md).',
      new cloudwatch.MathExpression({
        expression: 'errors + failed',
        usingMetrics: {
          errors: props.rotation.function.metricErrors(sum),
          failed: new cloudwatch.Metric({
            namespace: 'AWS/Events',
            metricName: 'FailedInvocations',
            dimensionsMap: { RuleName: props.rotation.rule.ruleName },
            ...sum,
          }),
        },
        period,
      }),
      0,
    );

    const groupMetrics = new Map<string, { errors: cloudwatch.IMetric[]; throttles: cloudwatch.IMetric[] }>();
    const groupAlarms: cloudwatch.AlarmBase[] = [];
    for (const [group, functions] of props.functionGroups) {
      const errors = functions.map((fn) => fn.metricErrors(sum));
      const throttles = functions.map((fn) => fn.metricThrottles(sum));
      groupMetrics.set(group, { errors, throttles });
      groupAlarms.push(
        this.groupAlarm(
          `FunctionErrors${title(group)}`,
          `Lambda errors (crashes, timeouts) in the ${group} functions.`,
          errors,
          t.functionErrors,
          alarm,
        ),
        this.groupAlarm(
          `FunctionThrottles${title(group)}`,
          `Lambda throttled invocations of the ${group} functions (concurrency limit reached).`,
          throttles,
          t.functionThrottles,
          alarm,
        ),
      );
    }
    this.functionGroupMetrics = groupMetrics;

    this.alarms = [...health, ...api, ...timeouts, ...table, kms, rotationFailed, ...groupAlarms];
    if (props.topic) {
      const action = new actions.SnsAction(props.topic);
      for (const a of this.alarms) {
        a.addAlarmAction(action);
        a.addOkAction(action);
      }
    }
  }

  /** One alarm on the sum of up to 10 metrics; above that, alarms of 10 under a composite alarm. */
  private groupAlarm(
    id: string,
    description: string,
    metrics: readonly cloudwatch.IMetric[],
    threshold: number,
    alarm: (id: string, description: string, metric: cloudwatch.IMetric, threshold: number) => cloudwatch.Alarm,
  ): cloudwatch.AlarmBase {
    const chunks: cloudwatch.IMetric[][] = [];
    for (let i = 0; i < metrics.length; i += MAX_METRICS_PER_ALARM) chunks.push(metrics.slice(i, i + MAX_METRICS_PER_ALARM));
    const sumOf = (chunk: readonly cloudwatch.IMetric[]): cloudwatch.IMetric =>
      chunk.length === 1
        ? chunk[0]!
        : new cloudwatch.MathExpression({
            expression: chunk.map((_, i) => `m${i}`).join(' + '),
            usingMetrics: Object.fromEntries(chunk.map((m, i) => [`m${i}`, m])),
          });
    if (chunks.length === 1) return alarm(id, description, sumOf(chunks[0]!), threshold);
    const parts = chunks.map((chunk, i) =>
      alarm(`${id}${i + 1}`, `${description} (part ${i + 1} of ${chunks.length})`, sumOf(chunk), threshold),
    );
    return new cloudwatch.CompositeAlarm(this, id, {
      alarmDescription: `${description} Any of: ${parts.length} alarms of up to ${MAX_METRICS_PER_ALARM} functions each.`,
      alarmRule: cloudwatch.AlarmRule.anyOf(...parts),
    });
  }
}
