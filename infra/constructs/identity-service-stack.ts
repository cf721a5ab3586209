import { CfnOutput, CfnResource, Duration, RemovalPolicy, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { ROUTES, type Route, routeGroup } from '../../shared/routes.ts';
import type { StageConfig } from '../stages.ts';
import { AccessRoles } from './access-roles.ts';
import { CustomDomain } from './custom-domain.ts';
import { DataTable } from './data-table.ts';
import { KeyRotation, ROTATION_ACCESS } from './key-rotation.ts';
import { RouteApi } from './route-api.ts';
import { ServiceAlarms } from './service-alarms.ts';
import type { FunctionDefaults } from './service-function.ts';
import { ServiceKeys } from './service-keys.ts';
import { BOOTSTRAP_ACCESS, StageBootstrap } from './stage-bootstrap.ts';

/** CloudFormation's per-stack resource quota. */
export const MAX_RESOURCES = 500;

/** The spec's health path (API.md §1); its function is what the health alarms watch. */
export const HEALTH_PATH = '/company/v1/health';

export interface IdentityServiceStackProps extends StackProps {
  readonly stage: StageConfig;
  /** @default ROUTES (shared/routes.ts) */
  readonly routes?: readonly Route[];
  /** @default - every handler bundled with esbuild (see FunctionDefaults.codeFor) */
  readonly codeFor?: FunctionDefaults['codeFor'];
}

/** One stage of the service: `IdentityService-<stage>` (DESIGN.md §1). */
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
      KEY_MODE: stage.keyMode,
      KMS_KEY_ID: this.keys.wrapKey.keyArn,
      ...(this.keys.signingKey ? { KMS_SIGNING_KEY_ID: this.keys.signingKey.keyArn } : {}),
      ...(stage.docsUrl ? { DOCS_URL: stage.docsUrl } : {}),
      RECORD_CACHE_TTL_SECONDS: String(stage.recordCacheTtlSeconds),
      KEY_RETIRE_AFTER_SECONDS: String(stage.keyRetireAfterSeconds),
      POWERTOOLS_SERVICE_NAME: 'identity-service',
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

    const healthRoute = routes.find((r) => r.method === 'GET' && r.path === HEALTH_PATH);
    if (!healthRoute) throw new Error(`The route table has no GET ${HEALTH_PATH}: the health alarms need it.`);
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      stage: this.api.api.deploymentStage,
      accessLogs: this.api.accessLogs,
      functionLogs,
      functionGroups: [...new Set(routes.map(routeGroup))],
      healthFunction: this.api.functions.get(healthRoute.handler)!,
      healthP99Ms: stage.alarms.healthP99Ms,
      serverErrors: stage.alarms.serverErrors,
      throttled: stage.alarms.throttled,
      dependencyTimeouts: stage.alarms.dependencyTimeouts,
      period: Duration.minutes(stage.alarms.periodMinutes),
      metricNamespace: `IdentityService/${stage.name}`,
      topic: this.alarmTopic(stage),
    });

    // Fail `cdk synth`, not a deploy half an hour later, when the route table outgrows the stack.
    this.node.addValidation({
      validate: () => {
        const count = this.node.findAll().filter((c) => c instanceof CfnResource && Stack.of(c) === this).length;
        return count < MAX_RESOURCES
          ? []
          : [`${count} resources: CloudFormation allows ${MAX_RESOURCES} per stack (docs/deploy.md, "Resource budget").`];
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
      description: 'The Default Client (API.md §4)',
    });
  }

  private alarmTopic(stage: StageConfig): sns.ITopic | undefined {
    const { topicArn, emails } = stage.alarms;
    if (topicArn) return sns.Topic.fromTopicArn(this, 'AlarmTopic', topicArn);
    if (!emails?.length) return undefined;
    const topic = new sns.Topic(this, 'AlarmTopic', { displayName: `Identity service ${stage.name} alarms` });
    for (const email of emails) topic.addSubscription(new subscriptions.EmailSubscription(email));
    return topic;
  }
}
