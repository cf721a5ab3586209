import { Annotations, CfnOutput, CfnResource, Duration, NestedStack, RemovalPolicy, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { routeGroup } from '#shared/routes/function-groups.ts';
import type { Route } from '#shared/routes/route.ts';
import { ROUTES } from '#shared/routes/route-table.ts';
import { acknowledgeNagFindings } from '../nag-suppressions.ts';
import { type StageConfig, wafEnabled } from '../stages.ts';
import { AccessRoles } from './access-roles.ts';
import { CustomDomain } from './custom-domain.ts';
import { DataTable } from './data-table.ts';
import { EdgeProtection } from './edge-protection.ts';
import { EventAlarms } from './event-alarms.ts';
import { EventStream } from './event-stream.ts';
import { KeyRotation, ROTATION_ACCESS } from './key-rotation.ts';
import { RouteApi, TOKEN_HANDLER } from './route-api.ts';
import { metricNamespace, ServiceAlarms } from './service-alarms.ts';
import { ServiceDashboard } from './service-dashboard.ts';
import type { FunctionDefaults } from './service-function.ts';
import { ServiceKeys } from './service-keys.ts';
import { BOOTSTRAP_ACCESS, StageBootstrap } from './stage-bootstrap.ts';

/** CloudFormation's per-stack resource quota. */
export const MAX_RESOURCES = 500;

/** CloudFormation resources of one stack (a nested stack's own are not its parent's). */
export function resourceCountOf(stack: Stack): number {
  return stack.node.findAll().filter((c) => c instanceof CfnResource && Stack.of(c) === stack).length;
}

/** The spec's health path (docs/contract.md §1); its function is what the health alarms watch. */
export const HEALTH_PATH = '/company/v1/health';

export interface IdentityServiceStackProps extends StackProps {
  readonly stage: StageConfig;
  /** @default ROUTES (shared/routes/route-table.ts) */
  readonly routes?: readonly Route[];
  /** @default - every handler bundled with esbuild (see FunctionDefaults.codeFor) */
  readonly codeFor?: FunctionDefaults['codeFor'];
}

/** One stage of the service: `IdentityService-<stage>` (docs/design.md §1). */
/** Handler modules that read the token path's copies (client grants, resource views). */
const OAUTH_HANDLERS = 'functions/oauth/';

export class IdentityServiceStack extends Stack {
  readonly table: DataTable;
  readonly keys: ServiceKeys;
  readonly roles: AccessRoles;
  readonly api: RouteApi;
  readonly rotation: KeyRotation;
  readonly bootstrap: StageBootstrap;
  readonly alarms: ServiceAlarms;
  readonly dashboard: ServiceDashboard;
  /** The table stream's forwarder to the stage's EventBridge bus (docs/events.md). */
  readonly events: EventStream;
  readonly eventAlarms: EventAlarms;
  /** Alarms, topic and dashboard. */
  readonly monitoring: NestedStack;
  /** The WAF web ACL, when the stage has one (infra/stages.ts `wafEnabled`). */
  readonly edge: EdgeProtection | undefined;

  constructor(scope: Construct, id: string, props: IdentityServiceStackProps) {
    super(scope, id, { description: `Identity service, stage ${props.stage.name}`, ...props });
    const stage = props.stage;
    const routes = props.routes ?? ROUTES;
    const removalPolicy = stage.removalPolicy === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    const retention = stage.logRetentionDays as logs.RetentionDays;
    Tags.of(this).add('service', 'identity-service');
    Tags.of(this).add('stage', stage.name);

    this.table = new DataTable(this, 'Data', { removalPolicy });
    this.keys = new ServiceKeys(this, 'Keys', { keyMode: stage.keyMode, removalPolicy });
    const functionLogs = new logs.LogGroup(this, 'FunctionLogs', { retention, removalPolicy });
    this.roles = new AccessRoles(this, 'Roles', { table: this.table.table, keys: this.keys, logGroup: functionLogs, email: stage.email });

    // What shared/config.ts reads; ISSUER is added by RouteApi once the API id exists.
    const environment: Record<string, string> = {
      TABLE_NAME: this.table.table.tableName,
      STAGE: stage.name,
      MULTI_TENANT: String(stage.multiTenant),
      PASSKEYS: stage.passkeys,
      KEY_MODE: stage.keyMode,
      KMS_KEY_ID: this.keys.wrapKey.keyArn,
      ...(this.keys.signingKey ? { KMS_SIGNING_KEY_ID: this.keys.signingKey.keyArn } : {}),
      ...(stage.docsUrl ? { DOCS_URL: stage.docsUrl } : {}),
      RECORD_CACHE_TTL_SECONDS: String(stage.recordCacheTtlSeconds),
      KEY_RETIRE_AFTER_SECONDS: String(stage.keyRetireAfterSeconds),
      EVENTS_RETENTION_DAYS: String(stage.eventsRetentionDays),
      POWERTOOLS_SERVICE_NAME: 'identity-service',
      // The functions' metrics (shared/observability/service-metrics.ts) go beside the log-derived ones.
      POWERTOOLS_METRICS_NAMESPACE: metricNamespace(stage.name),
    };
    const functionDefaults: FunctionDefaults = {
      environment,
      logGroup: functionLogs,
      logLevel: stage.logLevel,
      tracing: stage.tracing,
      ...(props.codeFor ? { codeFor: props.codeFor } : {}),
    };

    this.api = new RouteApi(this, 'Api', {
      stageName: stage.name,
      routes,
      roles: this.roles,
      functionDefaults,
      throttle: stage.throttle,
      email: stage.email,
      issuer: stage.issuer ?? (stage.customDomain ? `https://${stage.customDomain.domainName}` : undefined),
      docsUrl: stage.docsUrl,
      accessLogRetention: retention,
      removalPolicy,
      tracing: stage.tracing,
      cloudWatchRole: stage.apiGatewayAccountRole,
    });
    if (stage.customDomain) {
      const { domainName, certificateArn, hostedZoneId, hostedZoneName } = stage.customDomain;
      new CustomDomain(this, 'Domain', {
        api: this.api.api,
        domainName,
        certificateArn,
        ...(hostedZoneId && hostedZoneName ? { hostedZone: { hostedZoneId, zoneName: hostedZoneName } } : {}),
      });
    }

    const withIssuer: FunctionDefaults = { ...functionDefaults, environment: { ...environment, ISSUER: this.api.issuer } };
    this.rotation = new KeyRotation(this, 'KeyRotation', {
      role: this.roles.roleFor(ROTATION_ACCESS),
      functionDefaults: withIssuer,
      schedule: events.Schedule.expression(stage.rotationSchedule),
    });

    // Records, service secrets and first signing keys exist before the stage takes a request, so
    // no request-path role needs the grants to create them (docs/deploy.md, "Bootstrap").
    const bootstrapRole = this.roles.roleFor(BOOTSTRAP_ACCESS);
    this.bootstrap = new StageBootstrap(this, 'Bootstrap', {
      role: bootstrapRole,
      functionDefaults: withIssuer,
      dependsOn: [this.table.table, this.keys, bootstrapRole],
    });
    this.api.api.deploymentStage.node.addDependency(this.bootstrap.resource);
    // Each deploy is an expand/contract migration (docs/data-model.md "Migrations"): the functions
    // that write the token path's copies take their new code first, bootstrap then reconciles the
    // copies, and only then do the OAuth functions, which read them, take theirs. A rollback
    // undoes it in reverse, and the next deploy's bootstrap repairs what older code left behind.
    for (const [handlerModule, fn] of this.api.functions) {
      if (handlerModule.startsWith(OAUTH_HANDLERS)) fn.node.addDependency(this.bootstrap.resource);
      else this.bootstrap.resource.node.addDependency(fn);
    }

    // Not a route: the table stream invokes it (docs/events.md "Streaming: the EventBridge bus").
    this.events = new EventStream(this, 'Events', {
      stageName: stage.name,
      table: this.table.table,
      functionDefaults: withIssuer,
      logGroup: functionLogs,
      removalPolicy,
    });

    const healthRoute = routes.find((r) => r.method === 'GET' && r.path === HEALTH_PATH);
    if (!healthRoute) throw new Error(`The route table has no GET ${HEALTH_PATH}: the health alarms need it.`);
    if (wafEnabled(stage)) {
      this.edge = new EdgeProtection(this, 'Waf', {
        stage: this.api.api.deploymentStage,
        sensitivePathLimit: stage.waf.sensitivePathLimit,
        perIpLimit: stage.waf.perIpLimit,
        evaluationWindowSeconds: stage.waf.evaluationWindowSeconds,
        managedRuleGroups: stage.waf.managedRuleGroups,
        metricPrefix: `IdentityService-${stage.name}`,
        docsUrl: stage.docsUrl,
      });
    }

    // Alarms, their topic and the dashboard live in a nested stack: about 40 resources that would
    // otherwise take route room in this one (docs/deploy.md "Resource budget").
    this.monitoring = new NestedStack(this, 'Monitoring', { description: `Identity service ${stage.name}: alarms and dashboard` });
    const period = Duration.minutes(stage.alarms.periodMinutes);
    const topic = this.alarmTopic(this.monitoring, stage);
    this.alarms = new ServiceAlarms(this.monitoring, 'Alarms', {
      stage: this.api.api.deploymentStage,
      accessLogs: this.api.accessLogs,
      functionLogs,
      routeGroups: [...new Set(routes.map(routeGroup))],
      functionGroups: this.functionGroups(routes),
      healthFunction: this.api.functions.get(healthRoute.handler)!,
      table: this.table.table,
      rotation: { function: this.rotation.function, rule: this.rotation.rule },
      thresholds: stage.alarms,
      period,
      metricNamespace: metricNamespace(stage.name),
      topic,
    });
    const serviceMetrics = { namespace: environment.POWERTOOLS_METRICS_NAMESPACE!, service: environment.POWERTOOLS_SERVICE_NAME! };
    this.eventAlarms = new EventAlarms(this.monitoring, 'EventAlarms', {
      forwarder: this.events.function,
      failures: this.events.failures,
      serviceMetrics,
      thresholds: stage.alarms,
      period,
      topic,
    });
    this.dashboard = new ServiceDashboard(this.monitoring, 'Dashboard', {
      stageName: stage.name,
      stage: this.api.api.deploymentStage,
      alarms: this.alarms,
      healthFunction: this.api.functions.get(healthRoute.handler)!,
      tokenFunction: this.api.functions.get(TOKEN_HANDLER),
      table: this.table.table,
      webAclMetricName: this.edge ? `IdentityService-${stage.name}-WebAcl` : undefined,
      period,
      serviceMetrics,
    });
    this.dashboard.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({ title: 'Security events', alarms: [...this.eventAlarms.alarms], width: 12, height: 6 }),
      this.eventAlarms.topTenantsWidget,
    );

    acknowledgeNagFindings({
      routeMethods: [...this.api.routeMethods, ...this.api.headMethods],
      fallbackMethods: this.api.fallbackMethods,
      tracedRoles: stage.tracing ? [this.roles, this.events.role] : [],
      accountRole: this.api.accountRole,
      sesEmailRoles: stage.email && !stage.email.identityArn ? this.roles : undefined,
      stageWithoutWaf: this.edge ? undefined : this.api.api.deploymentStage,
      eventFailureQueue: this.events.failures,
    });

    // Fail `cdk synth`, not a deploy half an hour later, when the route table outgrows the stack.
    this.node.addValidation({
      validate: () => {
        return [this, ...this.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c))].flatMap((stack) => {
          const count = resourceCountOf(stack);
          return count < MAX_RESOURCES
            ? []
            : [
                `${stack.node.path}: ${count} resources: CloudFormation allows ${MAX_RESOURCES} per stack (docs/deploy.md, "Resource budget").`,
              ];
        });
      },
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Stage URL (execute-api)' });
    new CfnOutput(this, 'Issuer', { value: this.api.issuer, description: 'Token issuer / {base_url}' });
    new CfnOutput(this, 'TableName', { value: this.table.table.tableName });
    new CfnOutput(this, 'BootstrapFunctionName', {
      value: this.bootstrap.function.functionName,
      description: 'Stage bootstrap; `npm run bootstrap -- --stage <name>` invokes it to show the Default Client credentials once',
    });
    new CfnOutput(this, 'DefaultClientId', {
      value: this.bootstrap.resource.getAttString('DefaultClientId'),
      description: 'The Default Client (docs/contract.md §4)',
    });
  }

  /** Every function of the stage by group: the route functions by their routes' group, the fallback, bootstrap and rotation. */
  private functionGroups(routes: readonly Route[]): Map<string, lambda.IFunction[]> {
    const groups = new Map<string, lambda.IFunction[]>();
    const add = (group: string, fn: lambda.IFunction) => groups.set(group, [...(groups.get(group) ?? []), fn]);
    for (const [handlerModule, fn] of this.api.functions) add(routeGroup(routes.find((r) => r.handler === handlerModule)!), fn);
    add('gateway', this.api.fallback);
    add('background', this.rotation.function);
    add('background', this.bootstrap.function);
    add('background', this.events.function);
    return groups;
  }

  /**
   * The stage's alarm topic: an existing one (`alarms.topicArn`), else a topic of its own, made
   * even before anyone subscribes, so every alarm has somewhere to go and an operator can
   * subscribe later without a deploy (its ARN is the stack output `AlarmTopicArn`). A production
   * stage (`removalPolicy: retain`) with no recipient in its config gets a synth warning: its
   * alarms would reach no one until someone subscribes.
   */
  private alarmTopic(scope: Construct, stage: StageConfig): sns.ITopic {
    const { topicArn, emails = [], https = [] } = stage.alarms;
    if (topicArn) return sns.Topic.fromTopicArn(scope, 'AlarmTopic', topicArn);
    if (emails.length + https.length === 0 && stage.removalPolicy === 'retain') {
      Annotations.of(this).addWarningV2(
        'identity:alarm-recipients',
        `Stage ${stage.name}: no alarms.emails, alarms.https or alarms.topicArn in its config, so its alarms reach no one until someone subscribes to the topic (stack output AlarmTopicArn; docs/deploy.md "Alarms and dashboard").`,
      );
    }
    // enforceSSL: the topic's policy refuses publishing and subscribing over plain HTTP (cdk-nag SNS3).
    const topic = new sns.Topic(scope, 'AlarmTopic', { displayName: `Identity service ${stage.name} alarms`, enforceSSL: true });
    new CfnOutput(this, 'AlarmTopicArn', { value: topic.topicArn, description: 'SNS topic every alarm of the stage notifies' });
    for (const email of emails) topic.addSubscription(new subscriptions.EmailSubscription(email));
    for (const url of https) topic.addSubscription(new subscriptions.UrlSubscription(url, { protocol: sns.SubscriptionProtocol.HTTPS }));
    return topic;
  }
}
