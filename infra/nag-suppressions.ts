import { type App, Stack, Token, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import type { Route } from '#shared/routes/route.ts';

/**
 * Every cdk-nag AwsSolutions finding the service accepts, each with its reason: the one place they
 * are declared (docs/deploy.md "cdk-nag"). Everything else the pack reports fails `npm test`
 * (test/infra/nag.test.ts) and `cdk synth` (infra/app.ts). Findings that could be fixed were fixed
 * instead: named GSI ARNs rather than `index/*` (IAM5), a request validator (APIG2), ERROR-level
 * execution logs (APIG6), an inline account logging policy rather than the AWS managed one (IAM4),
 * TLS-only alarm topic (SNS3), a WAF web ACL where the stage turns it on (APIG3), an encrypted
 * TLS-only event failure queue (SQS2, SQS4).
 */

/** Why a route's method has no API Gateway authorizer (APIG4) and no Cognito authorizer (COG4). */
export function routeAuthorizationReason(route: Route): string {
  const where = `${route.method} ${route.path}`;
  const rule = route.auth;
  if (rule.type === 'none') {
    return (
      `${where} is public by protocol (route table auth "none"): discovery (RFC 8414), the JWKS (RFC 7517) or a hosted page ` +
      'whose forms carry a CSRF token and which authenticates the user itself (docs/contract.md §5). There is no caller to authorize.'
    );
  }
  if (rule.type === 'client') {
    return (
      `${where} authenticates its caller in the function (route table auth "client", docs/contract.md §5): the OAuth client by ` +
      'client_secret_basic or client_secret_post against the stored SHA-256 hash with a constant-time compare, or a public ' +
      "client's client_id (RFC 6749 §2.3); /userinfo verifies its bearer access token (OIDC Core §5.3). A gateway authorizer " +
      'cannot read form bodies and would answer in its own shape instead of RFC 6749 §5.2 errors.'
    );
  }
  const token =
    'a JWT access token of this service, verified in the function (shared/http/authenticate.ts) against the stage signing keys: ' +
    'signature, issuer, expiry and not-before';
  if (!rule.scope) {
    return (
      `${where} needs ${token} (route table auth "bearer", spec 4.4); the function checks it itself so that health can still ` +
      'answer "degraded" when the table is unreachable. The service is its own token issuer, so an authorizer would repeat the same check.'
    );
  }
  const self = rule.self ? `, or a user's own token when the {${rule.self}} path parameter is that user (docs/contract.md §7.6)` : '';
  return (
    `${where} needs ${token}, audience = the management API, not revoked (jti), its user still active, and scope ` +
    `"${rule.scope}"${self} (docs/contract.md §4); else 401 with WWW-Authenticate or 403 insufficient_scope. The service is its own ` +
    'token issuer (no Cognito user pool), so a gateway authorizer would repeat the same check against the same keys.'
  );
}

export const FALLBACK_REASON =
  'The ANY fallback answers 404 not_found or 405 method_not_allowed (functions/http/fallback.ts) by matching the path against ' +
  'the route table; its function has no table or KMS access (the NoTable role), so there is nothing to authorize.';

/** X-Ray's PutTraceSegments and PutTelemetryRecords take no resource-level permissions. */
export const XRAY_REASON =
  'Resource "*" only for xray:PutTraceSegments and xray:PutTelemetryRecords (added by active tracing): X-Ray supports no ' +
  'resource-level permissions for them. test/infra/nag.test.ts checks that no other action is granted on "*".';

export const ACCOUNT_LOGGING_REASON =
  "API Gateway's account-wide CloudWatch role (one per account and region) writes the logs of every REST API there, so it " +
  "is scoped to this account's and region's log groups (log-group:*), not to this stage's; the AWS managed policy it " +
  'replaces grants the same actions on "*" in every region.';

export const SES_ANY_IDENTITY_REASON =
  "The stage names no SES identity (email.identityArn), so ses:SendEmail is on this account and region's identities, with the " +
  "condition ses:FromAddress = the stage's sender: the function can send only as that address. Set email.identityArn to narrow it.";

export const NO_WAF_REASON =
  'This stage turns the WAF web ACL off (cdk.json waf.enabled: false; on by default only for production stages, docs/deploy.md "WAF"). ' +
  'Stage and per-route throttles, the per-user login lockout and per-client rate limits still apply.';

export const EVENT_FAILURES_REASON =
  "This queue is itself the last stop: the on-failure destination of the event forwarder's stream mapping, where Lambda describes " +
  'the stream batches it gave up on (shard and sequence numbers; the events stay in the table). A queue behind it would only ' +
  'move the same messages again; the EventsDiscarded alarm watches this one (docs/events.md "Alarms and dashboard").';

/** An ARN of this account and region as cdk-nag writes it in a finding id (`<AWS::Region>` for an unresolved region). */
function findingArn(scope: IConstruct, service: string, resource: string): string {
  const stack = Stack.of(scope);
  const literal = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<AWS::${pseudo}>` : value);
  return `arn:<AWS::Partition>:${service}:${literal(stack.region, 'Region')}:${literal(stack.account, 'AccountId')}:${resource}`;
}

/** Runs the AwsSolutions pack when the app synthesizes (`cdk synth`, `cdk deploy`): an unacknowledged finding fails it. */
export function addNagChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
}

/** Acknowledges one cdk-nag finding on a construct (and everything under it). */
export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions-${id}`, reason });
}

/** The parts of a stage that carry accepted findings. */
export interface NagAcknowledgedParts {
  /** Each route's API Gateway methods (a GET row's HEAD method too). */
  readonly routeMethods: Iterable<readonly [Route, IConstruct]>;
  /** The 404/405 `ANY` methods. */
  readonly fallbackMethods: readonly IConstruct[];
  /** Function roles, when tracing adds X-Ray's `*` statement to them. */
  readonly tracedRoles: readonly IConstruct[];
  /** API Gateway's account logging role, when the stage creates it. */
  readonly accountRole?: IConstruct | undefined;
  /** The roles (one of which sends email), when the stage names no SES identity. */
  readonly sesEmailRoles?: IConstruct | undefined;
  /** The API stage, when the stage has no WAF web ACL. */
  readonly stageWithoutWaf?: IConstruct | undefined;
  /** The event forwarder's on-failure queue (a dead-letter destination with none of its own). */
  readonly eventFailureQueue?: IConstruct | undefined;
}

/** Applies every acknowledgment above; called once by IdentityServiceStack. */
export function acknowledgeNagFindings(parts: NagAcknowledgedParts): void {
  for (const [route, method] of parts.routeMethods) {
    const reason = routeAuthorizationReason(route);
    acknowledge(method, 'APIG4', reason);
    acknowledge(method, 'COG4', reason);
  }
  for (const method of parts.fallbackMethods) {
    acknowledge(method, 'APIG4', FALLBACK_REASON);
    acknowledge(method, 'COG4', FALLBACK_REASON);
  }
  for (const role of parts.tracedRoles) acknowledge(role, 'IAM5[Resource::*]', XRAY_REASON);
  if (parts.accountRole) {
    acknowledge(parts.accountRole, `IAM5[Resource::${findingArn(parts.accountRole, 'logs', 'log-group:*')}]`, ACCOUNT_LOGGING_REASON);
  }
  if (parts.sesEmailRoles) {
    acknowledge(parts.sesEmailRoles, `IAM5[Resource::${findingArn(parts.sesEmailRoles, 'ses', 'identity/*')}]`, SES_ANY_IDENTITY_REASON);
  }
  if (parts.stageWithoutWaf) acknowledge(parts.stageWithoutWaf, 'APIG3', NO_WAF_REASON);
  if (parts.eventFailureQueue) acknowledge(parts.eventFailureQueue, 'SQS3', EVENT_FAILURES_REASON);
}
