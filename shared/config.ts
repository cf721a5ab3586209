import * as v from 'valibot';
import type { DependencyBudget } from './aws/dependency-budget.ts';
import { PASSKEY_POLICIES, type PasskeyPolicy } from './records/passkey-record.ts';

/**
 * The service configuration, read from the environment once at the composition root and frozen
 * (docs/design.md §3.2). Nothing else in the code reads `process.env`.
 */
const bool = v.pipe(
  v.optional(v.picklist(['true', 'false', '1', '0', '']), 'false'),
  v.transform((s) => s === 'true' || s === '1'),
);
const int = (def: number, min: number, max: number) =>
  v.pipe(v.optional(v.string(), String(def)), v.transform(Number), v.integer(), v.minValue(min), v.maxValue(max));

const EnvSchema = v.object({
  /** The DynamoDB table of the stage. */
  TABLE_NAME: v.pipe(v.string(), v.minLength(1)),
  /** Set locally to DynamoDB Local's address; unset in AWS. */
  DYNAMODB_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  AWS_REGION: v.optional(v.string(), 'us-east-1'),
  /** `{base_url}`: the issuer of every token, without a trailing slash (docs/contract.md §1). */
  ISSUER: v.pipe(
    v.string(),
    v.url(),
    v.transform((s) => s.replace(/\/+$/, '')),
  ),
  STAGE: v.optional(v.string(), 'local'),
  /** docs/contract.md §4: multi-tenant mode honours the `tenant_id` header. */
  MULTI_TENANT: bool,
  DOCS_URL: v.optional(v.pipe(v.string(), v.url())),
  /** Set by Lambda: where the function's bundle lives (the API docs' files sit beside the code). */
  LAMBDA_TASK_ROOT: v.optional(v.string()),
  /** `envelope` (KMS-wrapped keys, default), `kms-sign` (KMS signs each token), `local` (AES-GCM master key file). */
  KEY_MODE: v.optional(v.picklist(['envelope', 'kms-sign', 'local']), 'envelope'),
  KMS_KEY_ID: v.optional(v.string()),
  /** Local mode only: where the AES-256-GCM master key lives. */
  LOCAL_MASTER_KEY_FILE: v.optional(v.string()),
  /** `kms-sign` mode only: the asymmetric ECC_NIST_P256 KMS key that signs every token (docs/keys.md). */
  KMS_SIGNING_KEY_ID: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** How long a demoted signing key stays published: the longest token lifetime (docs/keys.md). */
  // Deployed stages require at least the longest token_lifetime (86400 s, infra/stages.ts); tests go lower.
  KEY_RETIRE_AFTER_SECONDS: int(86400, 60, 366 * 86400),
  /** How long a container trusts its cached copy of the signing-keys partition. */
  KEY_CACHE_TTL_SECONDS: int(5, 1, 60),
  /** How long a container trusts a cached client or resource record (docs/tokens.md). */
  RECORD_CACHE_TTL_SECONDS: int(1, 0, 300),
  /** How long a container trusts a "not revoked" answer (docs/tokens.md); 0 reads every time. */
  REVOCATION_CACHE_TTL_SECONDS: int(1, 0, 60),
  /**
   * Time budgets of the AWS dependencies (shared/aws/dependency-budget.ts, docs/operations.md):
   * connect timeout, per-attempt timeout, attempts in all. A stalled dependency is a 503 after at
   * most attempts × (connect + attempt) plus short backoffs, well inside every function timeout.
   */
  DYNAMODB_CONNECT_TIMEOUT_MS: int(500, 50, 5000),
  DYNAMODB_ATTEMPT_TIMEOUT_MS: int(500, 50, 10_000),
  DYNAMODB_MAX_ATTEMPTS: int(2, 1, 5),
  KMS_CONNECT_TIMEOUT_MS: int(500, 50, 5000),
  KMS_ATTEMPT_TIMEOUT_MS: int(1000, 50, 10_000),
  KMS_MAX_ATTEMPTS: int(2, 1, 5),
  /**
   * Email (docs/contract.md §7.2, shared/email/): `OUTBOX_DIR` set (locally `<DATA_DIR>/outbox`) writes each
   * message there as JSON; else `EMAIL_FROM` set sends through Amazon SES v2 from that address
   * (`EMAIL_IDENTITY_ARN`: the SES identity authorizing it); neither: no email, and registration
   * answers 501.
   */
  OUTBOX_DIR: v.optional(v.pipe(v.string(), v.minLength(1))),
  EMAIL_FROM: v.optional(v.pipe(v.string(), v.email())),
  EMAIL_IDENTITY_ARN: v.optional(v.pipe(v.string(), v.regex(/^arn:aws[a-z-]*:ses:[a-z0-9-]+:\d{12}:identity\/.+$/))),
  /** docs/contract.md §7.3: consecutive failed password/OTP checks of a user before the lockout. */
  LOGIN_LOCKOUT_FAILURES: int(10, 1, 1000),
  /** docs/contract.md §7.3: how long attempts are refused (429) after the last counted attempt. */
  LOGIN_LOCKOUT_SECONDS: int(900, 1, 86_400),
  /** NIST SP 800-63B §5.2.2: consecutive failed codes after which a TOTP authenticator is disabled (at most 100). */
  OTP_MAX_FAILURES: int(100, 1, 100),
  /**
   * Live refresh-token families (logins with a refresh token) and hosted-page sessions kept per
   * user: a new one past the cap ends the user's oldest (docs/security.md "Caps").
   */
  USER_MAX_REFRESH_FAMILIES: int(100, 1, 500),
  USER_MAX_SESSIONS: int(50, 1, 500),
  SERVICE_NAME: v.optional(v.string(), 'identity-service'),
  SERVICE_DESCRIPTION: v.optional(v.string(), 'Identity and access management service'),
  /**
   * Metrics and traces (shared/observability/, docs/operations.md "Metrics and traces"): the
   * `service` dimension and trace annotation; the CloudWatch namespace of the metrics, set per stage
   * by the CDK app (unset: nothing is counted or published, as locally); how often a container
   * publishes what it counted (0: at the end of every invocation).
   */
  POWERTOOLS_SERVICE_NAME: v.optional(v.pipe(v.string(), v.minLength(1)), 'identity-service'),
  POWERTOOLS_METRICS_NAMESPACE: v.optional(v.pipe(v.string(), v.minLength(1))),
  METRICS_PUBLISH_SECONDS: int(60, 0, 300),
  /**
   * Plain-http identity providers on loopback addresses (docs/federation.md "URL policy"): allowed
   * only in local mode, where a test provider listens on 127.0.0.1; `false` refuses them there too.
   */
  FEDERATION_LOOPBACK_HTTP: v.optional(v.picklist(['true', 'false']), 'true'),
  /**
   * Passkeys on the hosted pages (docs/passkeys.md "Policy"): `off` offers none, `optional` offers
   * them beside the password, `required` makes every hosted sign-in end with a passkey.
   */
  PASSKEYS: v.optional(v.picklist(PASSKEY_POLICIES), 'optional'),
  /** How long security events are kept (docs/events.md "Retention"): DynamoDB TTL, in days. */
  EVENTS_RETENTION_DAYS: int(30, 1, 3650),
  /** The stage's EventBridge bus, where the event forwarder puts the events (docs/events.md "Streaming: the EventBridge bus"). */
  EVENT_BUS_NAME: v.optional(v.pipe(v.string(), v.minLength(1))),
});

export type Config = Readonly<{
  tableName: string;
  dynamodbEndpoint: string | undefined;
  region: string;
  issuer: string;
  managementAudience: string;
  stage: string;
  multiTenant: boolean;
  docsUrl: string | undefined;
  /** The function's bundle folder (Lambda's `LAMBDA_TASK_ROOT`): `openapi.json` and the reference page's files (docs/openapi.md). */
  bundleDir: string | undefined;
  keyMode: 'envelope' | 'kms-sign' | 'local';
  kmsKeyId: string | undefined;
  localMasterKeyFile: string | undefined;
  kmsSigningKeyId: string | undefined;
  keyRetireAfterSeconds: number;
  keyCacheTtlMs: number;
  recordCacheTtlMs: number;
  revocationCacheTtlMs: number;
  /** One budget per AWS dependency; every SDK client of that dependency is built from it. */
  budgets: Readonly<{ dynamodb: DependencyBudget; kms: DependencyBudget }>;
  email: EmailConfig | undefined;
  /** Brute-force limits of the password and otp grants (docs/contract.md §7.3, docs/users.md "Brute force"). */
  login: Readonly<{ lockoutFailures: number; lockoutSeconds: number; otpMaxFailures: number }>;
  /** How many refresh-token families and sessions a user keeps (docs/security.md "Caps"). */
  caps: UserCaps;
  serviceName: string;
  serviceDescription: string;
  /** Identity providers: plain http to a loopback address is allowed (local mode only; docs/federation.md). */
  federation: Readonly<{ allowLoopbackHttp: boolean }>;
  /** The hosted pages' passkey policy (docs/passkeys.md "Policy"). */
  passkeys: Readonly<{ policy: PasskeyPolicy }>;
  /** The security event log (docs/events.md). */
  events: Readonly<{ retentionDays: number; busName: string | undefined }>;
  /** Metrics: published when `namespace` is set (docs/operations.md "Metrics and traces"). */
  observability: Readonly<{ serviceName: string; metricsNamespace: string | undefined; metricsPublishMs: number }>;
}>;

/** Per-user caps on what a login leaves behind (store/user-caps.ts). */
export type UserCaps = Readonly<{ refreshFamilies: number; sessions: number }>;

/** How the stage sends email (shared/email/email-sender-of.ts). */
export type EmailConfig =
  | Readonly<{ transport: 'outbox'; dir: string }>
  | Readonly<{ transport: 'ses'; from: string; identityArn: string | undefined }>;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = v.safeParse(EnvSchema, env);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const key = issue.path?.map((p) => String(p.key)).join('.') ?? '?';
    throw new Error(`Invalid configuration: ${key}: ${issue.message}`);
  }
  const e = parsed.output;
  if (e.KEY_MODE !== 'local' && !e.KMS_KEY_ID) throw new Error('Invalid configuration: KMS_KEY_ID is required when KEY_MODE is not local');
  if (e.KEY_MODE === 'kms-sign' && !e.KMS_SIGNING_KEY_ID)
    throw new Error('Invalid configuration: KMS_SIGNING_KEY_ID is required when KEY_MODE is kms-sign');
  if (e.KEY_MODE === 'local' && !e.LOCAL_MASTER_KEY_FILE)
    throw new Error('Invalid configuration: LOCAL_MASTER_KEY_FILE is required when KEY_MODE is local');
  return Object.freeze({
    tableName: e.TABLE_NAME,
    dynamodbEndpoint: e.DYNAMODB_ENDPOINT,
    region: e.AWS_REGION,
    issuer: e.ISSUER,
    managementAudience: `${e.ISSUER}/identity/v1/`,
    stage: e.STAGE,
    multiTenant: e.MULTI_TENANT,
    docsUrl: e.DOCS_URL,
    bundleDir: e.LAMBDA_TASK_ROOT,
    keyMode: e.KEY_MODE,
    kmsKeyId: e.KMS_KEY_ID,
    localMasterKeyFile: e.LOCAL_MASTER_KEY_FILE,
    kmsSigningKeyId: e.KMS_SIGNING_KEY_ID,
    keyRetireAfterSeconds: e.KEY_RETIRE_AFTER_SECONDS,
    keyCacheTtlMs: e.KEY_CACHE_TTL_SECONDS * 1000,
    recordCacheTtlMs: e.RECORD_CACHE_TTL_SECONDS * 1000,
    revocationCacheTtlMs: e.REVOCATION_CACHE_TTL_SECONDS * 1000,
    budgets: Object.freeze({
      dynamodb: Object.freeze({
        connectTimeoutMs: e.DYNAMODB_CONNECT_TIMEOUT_MS,
        attemptTimeoutMs: e.DYNAMODB_ATTEMPT_TIMEOUT_MS,
        maxAttempts: e.DYNAMODB_MAX_ATTEMPTS,
      }),
      kms: Object.freeze({
        connectTimeoutMs: e.KMS_CONNECT_TIMEOUT_MS,
        attemptTimeoutMs: e.KMS_ATTEMPT_TIMEOUT_MS,
        maxAttempts: e.KMS_MAX_ATTEMPTS,
      }),
    }),
    email: emailConfig(e),
    login: Object.freeze({
      lockoutFailures: e.LOGIN_LOCKOUT_FAILURES,
      lockoutSeconds: e.LOGIN_LOCKOUT_SECONDS,
      otpMaxFailures: e.OTP_MAX_FAILURES,
    }),
    caps: Object.freeze({ refreshFamilies: e.USER_MAX_REFRESH_FAMILIES, sessions: e.USER_MAX_SESSIONS }),
    serviceName: e.SERVICE_NAME,
    serviceDescription: e.SERVICE_DESCRIPTION,
    federation: Object.freeze({ allowLoopbackHttp: e.STAGE === 'local' && e.FEDERATION_LOOPBACK_HTTP === 'true' }),
    passkeys: Object.freeze({ policy: e.PASSKEYS }),
    events: Object.freeze({ retentionDays: e.EVENTS_RETENTION_DAYS, busName: e.EVENT_BUS_NAME }),
    observability: Object.freeze({
      serviceName: e.POWERTOOLS_SERVICE_NAME,
      metricsNamespace: e.POWERTOOLS_METRICS_NAMESPACE,
      metricsPublishMs: e.METRICS_PUBLISH_SECONDS * 1000,
    }),
  });
}

function emailConfig(e: { OUTBOX_DIR?: string | undefined; EMAIL_FROM?: string | undefined; EMAIL_IDENTITY_ARN?: string | undefined }) {
  if (e.OUTBOX_DIR) return Object.freeze({ transport: 'outbox' as const, dir: e.OUTBOX_DIR });
  if (e.EMAIL_FROM) return Object.freeze({ transport: 'ses' as const, from: e.EMAIL_FROM, identityArn: e.EMAIL_IDENTITY_ARN });
  return undefined;
}
