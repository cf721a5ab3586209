import { Duration, type NestedStack, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FUNCTION_TIMEOUTS } from '#shared/routes/function-groups.ts';
import type { Route, Throttle } from '#shared/routes/route.ts';
import { functionTimeoutSeconds, handlerModules, ROUTES } from '#shared/routes/route-table.ts';
import { type AccessRoles, type EmailSenderSettings, NO_ACCESS, unionAccess } from './access-roles.ts';
import { BUNDLED_FILES } from './api-docs-bundle.ts';
import { ApiGatewayAccountRole } from './api-gateway-account-role.ts';
import { addGatewayResponses } from './gateway-responses.ts';
import { addRouteAreas } from './route-areas.ts';
import { type FunctionDefaults, ServiceFunction } from './service-function.ts';

/** Answers 404/405 for paths and methods no route serves (functions/http/fallback.ts). */
export const FALLBACK_HANDLER = 'functions/http/fallback';

const INVOKE_ARNS_PER_STATEMENT = 20;

/** The token endpoint's handler: the hot path (memory below, the dashboard's latency graph). */
export const TOKEN_HANDLER = 'functions/oauth/token';

/** The introspection endpoints' handlers: the hot path with /token. */
export const INTROSPECTION_HANDLERS = ['functions/oauth/introspect', 'functions/oauth/tokeninfo'] as const;

/**
 * Functions traced by Lambda only (its segment per invocation), without the X-Ray SDK in their
 * bundle: the hot path, where Powertools Tracer cost measurable CPU per request and about 130 KB of
 * bundle (docs/benchmarks.md "Metrics and traces: the cost per token"), and the 404/405 function,
 * which calls nothing worth a subsegment. Every other function runs Powertools Tracer
 * (ServiceFunction `tracer`; docs/operations.md "Metrics and traces").
 */
export const PLATFORM_TRACED: ReadonlySet<string> = new Set([TOKEN_HANDLER, ...INTROSPECTION_HANDLERS, FALLBACK_HANDLER]);

/** Memory where the 512 MB default is wrong; Lambda CPU grows with memory. */
export const FUNCTION_MEMORY_MB: Readonly<Record<string, number>> = {
  // Signs every token and verifies client secrets; p99 latency here is what clients feel most.
  [TOKEN_HANDLER]: 1024,
  // Only matches a path against the route table.
  [FALLBACK_HANDLER]: 256,
};

export interface RouteApiProps {
  /** API Gateway stage name; also the last segment of the default issuer. */
  readonly stageName: string;
  /**
   * The endpoints. Tests pass synthetic tables to check the resource budget.
   * @default ROUTES (shared/routes/route-table.ts)
   */
  readonly routes?: readonly Route[];
  /** Supplies each function's role from its routes' `access`. */
  readonly roles: AccessRoles;
  /** Environment, log group, tracing shared by every function. */
  readonly functionDefaults: FunctionDefaults;
  /**
   * The stage's email sender: the functions of routes with `access.email` get EMAIL_FROM (and
   * EMAIL_IDENTITY_ARN) and, through their role, `ses:SendEmail` (AccessRoles); no other function does.
   * @default - no sender: those routes answer 501
   */
  readonly email?: EmailSenderSettings | undefined;
  /** Stage-wide throttle; a route's own `throttle` overrides it for that method. */
  readonly throttle: Throttle;
  /**
   * The token issuer and `ISSUER` of every function.
   * @default - `https://<rest-api-id>.execute-api.<region>.<url-suffix>/<stageName>`
   */
  readonly issuer?: string;
  /** @default - gateway error messages carry no documentation link */
  readonly docsUrl?: string;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly accessLogRetention?: logs.RetentionDays;
  /** Of the access log group. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** X-Ray tracing on the stage. @default false */
  readonly tracing?: boolean;
  /**
   * Creates the account-wide CloudWatch role API Gateway needs to write access logs (one per
   * account and region; turn off when another stack already manages it).
   * @default true
   */
  readonly cloudWatchRole?: boolean;
}

/**
 * The REST API generated from the route table: one resource per path segment, one method per
 * route, one function per handler module, an `ANY` on every route path (and a root `{proxy+}`)
 * that answers 404/405 in the service's error shape, gateway responses in that shape, stage and
 * per-route throttles, JSON access logs.
 *
 * Resource budget (CloudFormation allows 500 per stack): API Gateway invokes the functions
 * through one IAM role (integration `credentials`) instead of a Lambda permission per function or
 * per method, and functions share one role per set of grants (AccessRoles). Per handler that leaves one
 * resource (the function); per route one method; per path one resource per new segment plus the
 * `ANY` fallback.
 */
export class RouteApi extends Construct {
  readonly api: apigw.RestApi;
  readonly issuer: string;
  /** By handler module. */
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  readonly fallback: ServiceFunction;
  readonly accessLogs: logs.LogGroup;
  /** API Gateway's account-wide logging role, when this stage creates it (`cloudWatchRole`). */
  readonly accountRole: iam.Role | undefined;
  /** API Gateway's own execution log group (ERROR level). */
  readonly executionLogs: logs.LogGroup;
  /** The role API Gateway assumes to invoke the functions. */
  readonly invokeRole: iam.Role;
  readonly requestValidator: apigw.RequestValidator;
  /** The method of each route. */
  readonly routeMethods: ReadonlyMap<Route, apigw.Method>;
  /** The HEAD method beside each GET route, by that route (route-areas.ts). */
  readonly headMethods: ReadonlyMap<Route, apigw.Method>;
  /** The nested stack of each API area (apiAreaOf), holding its resources and methods. */
  readonly areas: ReadonlyMap<string, NestedStack>;
  /** The `ANY` methods that answer 404/405 (functions/http/fallback.ts). */
  readonly fallbackMethods: readonly apigw.Method[];

  constructor(scope: Construct, id: string, props: RouteApiProps) {
    super(scope, id);
    const routes = props.routes ?? ROUTES;
    const stack = Stack.of(this);

    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.api = new apigw.RestApi(this, 'Api', {
      // The stage's own name: several stages of one account are told apart in the console and CLI.
      restApiName: `identity-service-${props.stageName}`,
      description: `Identity service (${props.stageName})`,
      endpointTypes: [apigw.EndpointType.REGIONAL],
      // Our own account role (below) instead of CDK's, which attaches an AWS managed policy.
      cloudWatchRole: false,
      deployOptions: {
        stageName: props.stageName,
        throttlingRateLimit: props.throttle.rateLimit,
        throttlingBurstLimit: props.throttle.burstLimit,
        methodOptions: routeThrottles(routes),
        accessLogDestination: new apigw.LogGroupLogDestination(this.accessLogs),
        accessLogFormat: accessLogFormat(),
        tracingEnabled: props.tracing ?? false,
        // Execution logs at ERROR only (integration failures, timeouts; API Gateway redacts
        // Authorization). INFO and data traces would record request bodies: client secrets, tokens.
        loggingLevel: apigw.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
      },
    });
    // API Gateway would create the execution log group itself, with no expiry: own it instead.
    this.executionLogs = new logs.LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${props.stageName}`,
      retention: props.accessLogRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.api.deploymentStage.node.addDependency(this.executionLogs);
    if (props.cloudWatchRole ?? true) {
      const account = new ApiGatewayAccountRole(this, 'AccountRole');
      this.accountRole = account.role;
      this.api.deploymentStage.node.addDependency(account);
    }
    // Parameters and bodies are validated by each function (valibot, a 400 naming the field); the
    // gateway validator checks what the methods declare: their path parameters (cdk-nag APIG2).
    this.requestValidator = this.api.addRequestValidator('Validator', { validateRequestBody: true, validateRequestParameters: true });

    // restApiId, not api.url: api.url depends on the stage, which depends on every method, which
    // depends on the functions whose environment this is: a cycle.
    this.issuer = props.issuer ?? `https://${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${props.stageName}`;
    const defaults: FunctionDefaults = {
      ...props.functionDefaults,
      environment: { ...props.functionDefaults.environment, ISSUER: this.issuer },
    };

    const functions = new Map<string, ServiceFunction>();
    for (const handlerModule of handlerModules(routes)) {
      const access = unionAccess(routes.filter((r) => r.handler === handlerModule).map((r) => r.access));
      const own = access.email && props.email ? withEmail(defaults, props.email) : defaults;
      functions.set(
        handlerModule,
        this.createFunction(handlerModule, props.roles.roleFor(access), own, functionTimeoutSeconds(handlerModule, routes)),
      );
    }
    this.functions = functions;
    this.fallback = this.createFunction(FALLBACK_HANDLER, props.roles.roleFor(NO_ACCESS), defaults, FUNCTION_TIMEOUTS.gateway);

    this.invokeRole = new iam.Role(this, 'InvokeRole', {
      assumedBy: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      description: 'API Gateway invokes the identity service functions with this role',
    });
    // These functions and nothing else. Statements of a few ARNs each let CDK spread the policy
    // over overflow documents once it outgrows IAM's 10 KB inline limit (~100 functions).
    const all = [...functions.values(), this.fallback];
    const arns = all.map((fn) => fn.functionArn);
    for (let i = 0; i < arns.length; i += INVOKE_ARNS_PER_STATEMENT) {
      this.invokeRole.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: arns.slice(i, i + INVOKE_ARNS_PER_STATEMENT) }),
      );
    }
    const integrations = new Map(all.map((fn) => [fn, this.integrate(fn)]));
    const fallback = integrations.get(this.fallback)!;
    const {
      areas,
      routeMethods,
      headMethods,
      fallbackMethods: areaFallbacks,
    } = addRouteAreas(this, {
      api: this.api,
      stageName: props.stageName,
      routes,
      integrationOf: (route) => integrations.get(functions.get(route.handler)!)!,
      fallback,
      requestValidator: this.requestValidator,
    });
    this.areas = areas;
    this.routeMethods = routeMethods;
    this.headMethods = headMethods;
    this.fallbackMethods = [
      ...areaFallbacks,
      this.api.root.addMethod('ANY', fallback),
      this.api.root.addResource('{proxy+}').addMethod('ANY', fallback),
    ];

    // The stage goes live only once API Gateway may invoke the functions (the role's policies).
    this.api.deploymentStage.node.addDependency(this.invokeRole);
    addGatewayResponses(this.api, props.docsUrl);
  }

  private createFunction(handlerModule: string, role: iam.IRole, defaults: FunctionDefaults, timeoutSeconds: number): ServiceFunction {
    return new ServiceFunction(this, handlerModule.replaceAll('/', '.'), {
      ...defaults,
      handlerModule,
      role,
      memorySize: FUNCTION_MEMORY_MB[handlerModule] ?? 512,
      tracer: PLATFORM_TRACED.has(handlerModule) ? 'platform' : 'sdk',
      ...(BUNDLED_FILES[handlerModule] ? { afterBundling: BUNDLED_FILES[handlerModule] } : {}),
      // Per route group (shared/routes/function-groups.ts FUNCTION_TIMEOUTS), inside API Gateway's 29 s.
      timeout: Duration.seconds(timeoutSeconds),
    });
  }

  /** Lambda proxy integration invoked with `invokeRole`: no Lambda permission resource needed. */
  private integrate(fn: ServiceFunction): apigw.Integration {
    return new apigw.AwsIntegration({
      proxy: true,
      service: 'lambda',
      path: `2015-03-31/functions/${fn.functionArn}/invocations`,
      options: { credentialsRole: this.invokeRole },
    });
  }
}

/** The sender settings of shared/config.ts, for a function that sends email. */
function withEmail(defaults: FunctionDefaults, email: EmailSenderSettings): FunctionDefaults {
  return {
    ...defaults,
    environment: {
      ...defaults.environment,
      EMAIL_FROM: email.from,
      ...(email.identityArn ? { EMAIL_IDENTITY_ARN: email.identityArn } : {}),
    },
  };
}

/**
 * Per-route overrides of the stage throttle, keyed `/<path>/<METHOD>` as API Gateway wants; a GET
 * row's HEAD method (route-areas.ts) gets the row's throttle too.
 */
function routeThrottles(routes: readonly Route[]): Record<string, apigw.MethodDeploymentOptions> {
  return Object.fromEntries(
    routes
      .filter((r) => r.throttle)
      .flatMap((r) => (r.method === 'GET' ? [r, { ...r, method: 'HEAD' }] : [r]))
      .map((r) => [`${r.path}/${r.method}`, { throttlingRateLimit: r.throttle!.rateLimit, throttlingBurstLimit: r.throttle!.burstLimit }]),
  );
}

/**
 * One JSON line per request. `status` is what the 429 metric filter reads (ServiceAlarms). No
 * query string, headers or user agent: they can carry credentials or break the JSON.
 */
export function accessLogFormat(): apigw.AccessLogFormat {
  const F = apigw.AccessLogField;
  return apigw.AccessLogFormat.custom(
    JSON.stringify({
      requestId: F.contextRequestId(),
      extendedRequestId: F.contextExtendedRequestId(),
      requestTime: F.contextRequestTimeEpoch(),
      ip: F.contextIdentitySourceIp(),
      method: F.contextHttpMethod(),
      resource: F.contextResourcePath(),
      path: F.contextPath(),
      status: F.contextStatus(),
      protocol: F.contextProtocol(),
      responseLength: F.contextResponseLength(),
      responseLatency: F.contextResponseLatency(),
      integrationLatency: F.contextIntegrationLatency(),
      integrationStatus: F.contextIntegrationStatus(),
      errorType: F.contextErrorResponseType(),
    }),
  );
}
