import type { App, Environment } from 'aws-cdk-lib';
import * as v from 'valibot';
import { PASSKEY_POLICIES } from '#shared/records/passkey-record.ts';
import { MANAGED_RULE_GROUPS } from './constructs/edge-protection.ts';

/**
 * Stage settings, read from `cdk.json` → `context.stages.<name>` and validated here so that a typo
 * fails `cdk synth` with the field named instead of deploying a half-configured stage.
 * Every field and its default is listed in docs/deploy.md.
 */
const int = (min: number, max: number) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));

/** CloudWatch Logs accepts only these retention periods. */
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653] as const;

/** API Gateway's account quota is 10,000 rps with a 5,000 burst; a stage cannot promise more. */
const ThrottleSchema = v.strictObject({ rateLimit: int(1, 10_000), burstLimit: int(1, 5_000) });

const httpsUrl = v.pipe(
  v.string(),
  v.url(),
  v.startsWith('https://', 'must be an https:// URL'),
  v.transform((s) => s.replace(/\/+$/, '')),
);

const CustomDomainSchema = v.pipe(
  v.strictObject({
    /** e.g. `id.example.com`; mapped at the root (no base path) so `event.path` equals the route path. */
    domainName: v.pipe(
      v.string(),
      v.regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a lower-case host name'),
    ),
    /** An ACM certificate in the stack's region (regional endpoint). */
    certificateArn: v.pipe(
      v.string(),
      v.regex(/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[\w-]+$/, 'must be an ACM certificate ARN'),
    ),
    /** Optional Route 53 zone in which to create the alias record. */
    hostedZoneId: v.optional(v.pipe(v.string(), v.regex(/^Z[A-Z0-9]+$/, 'must be a Route 53 hosted zone id'))),
    hostedZoneName: v.optional(v.string()),
  }),
  v.check((d) => (d.hostedZoneId === undefined) === (d.hostedZoneName === undefined), 'hostedZoneId and hostedZoneName go together'),
);

const AlarmsSchema = v.strictObject({
  /** Health function p99 duration (ms) above which the latency alarm fires. */
  healthP99Ms: v.optional(int(10, 30_000), 1_000),
  /** API 5XX responses per period above which the alarm fires. */
  serverErrors: v.optional(int(0, 1_000_000), 0),
  /** 429 responses per period (gateway throttles and application 429s) above which the alarm fires. */
  throttled: v.optional(int(0, 1_000_000), 10),
  /** Dependency timeouts (503s) per route group and period above which that group's alarm fires (docs/operations.md). */
  dependencyTimeouts: v.optional(int(0, 1_000_000), 5),
  /** Lambda errors (crashes, timeouts) per function group and period above which that group's alarm fires. */
  functionErrors: v.optional(int(0, 1_000_000), 0),
  /** Lambda throttled invocations per function group and period. */
  functionThrottles: v.optional(int(0, 1_000_000), 0),
  /** DynamoDB throttled requests (all operations) per period. */
  dynamoThrottles: v.optional(int(0, 1_000_000), 10),
  /** DynamoDB system errors (500s) per period. */
  dynamoSystemErrors: v.optional(int(0, 1_000_000), 0),
  /** Failed KMS calls per period. */
  kmsErrors: v.optional(int(0, 1_000_000), 0),
  /** Failed sign-ins of the busiest tenant per period (the example security alarm, docs/events.md "Alarms and dashboard"). */
  failedSignInsPerTenant: v.optional(int(1, 1_000_000), 50),
  /** Age in seconds of the oldest table stream record the event forwarder has not handled (the stream keeps records 24 hours). */
  eventsIteratorAgeSeconds: v.optional(int(60, 86_400), 600),
  periodMinutes: v.optional(int(1, 60), 5),
  /** Existing SNS topic for alarm actions. */
  topicArn: v.optional(v.pipe(v.string(), v.regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]+$/, 'must be an SNS topic ARN'))),
  /** Creates a topic with these e-mail subscriptions (ignored when topicArn is set). */
  emails: v.optional(v.array(v.pipe(v.string(), v.email()))),
  /** ... and these HTTPS endpoints (a chat webhook, an incident tool), each confirming its subscription. */
  https: v.optional(v.array(v.pipe(v.string(), v.url(), v.startsWith('https://', 'must be an https:// URL')))),
});

/** AWS WAF on the API stage (infra/constructs/edge-protection.ts; docs/deploy.md "WAF"). */
const WafSchema = v.strictObject({
  /** @default true, except on stages with `removalPolicy: destroy` (throwaway stages) */
  enabled: v.optional(v.boolean()),
  /** Requests per client IP and window on each of /token, /login, /device, /users/register. */
  sensitivePathLimit: v.optional(int(10, 2_000_000_000), 300),
  /** Requests per client IP and window on the whole API. */
  perIpLimit: v.optional(int(10, 2_000_000_000), 3_000),
  evaluationWindowSeconds: v.optional(v.picklist([60, 120, 300, 600], 'must be 60, 120, 300 or 600'), 300),
  managedRuleGroups: v.optional(v.array(v.picklist(MANAGED_RULE_GROUPS, `must be one of ${MANAGED_RULE_GROUPS.join(', ')}`)), [
    'AWSManagedRulesCommonRuleSet',
    'AWSManagedRulesKnownBadInputsRuleSet',
    'AWSManagedRulesAmazonIpReputationList',
  ]),
});

/** The stage's email sender (docs/contract.md §7.2; docs/users.md "Registration and email"). */
const EmailSchema = v.strictObject({
  /** The From address, verified in SES (an email or domain identity). */
  from: v.pipe(v.string(), v.email('must be an email address')),
  /** The SES identity authorizing `from`; scopes the functions' `ses:SendEmail` to it. */
  identityArn: v.optional(
    v.pipe(v.string(), v.regex(/^arn:aws[a-z-]*:ses:[a-z0-9-]+:\d{12}:identity\/.+$/, 'must be an SES identity ARN')),
  ),
});

export const StageSettingsSchema = v.strictObject({
  account: v.optional(v.pipe(v.string(), v.regex(/^\d{12}$/, 'must be a 12-digit account id'))),
  region: v.optional(v.pipe(v.string(), v.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be a region name like eu-west-1'))),
  throttle: v.optional(ThrottleSchema, { rateLimit: 100, burstLimit: 200 }),
  multiTenant: v.optional(v.boolean(), false),
  /** `PASSKEYS`: passkeys on the hosted pages, `off`, `optional` or `required` (docs/passkeys.md "Policy"). */
  passkeys: v.optional(v.picklist(PASSKEY_POLICIES), 'optional'),
  keyMode: v.optional(v.picklist(['envelope', 'kms-sign']), 'envelope'),
  logRetentionDays: v.optional(v.picklist(RETENTION_DAYS, `must be one of ${RETENTION_DAYS.join(', ')}`), 30),
  removalPolicy: v.optional(v.picklist(['destroy', 'retain']), 'retain'),
  logLevel: v.optional(v.picklist(['DEBUG', 'INFO', 'WARN', 'ERROR']), 'INFO'),
  /** X-Ray on the API stage and every function (docs/operations.md "Metrics and traces"). */
  tracing: v.optional(v.boolean(), true),
  recordCacheTtlSeconds: v.optional(int(0, 300), 1),
  /** `EVENTS_RETENTION_DAYS` of every function: how long security events are kept (docs/events.md "Retention"); same bounds as shared/config.ts. */
  eventsRetentionDays: v.optional(int(1, 3650), 30),
  /**
   * `KEY_RETIRE_AFTER_SECONDS`: how long a demoted signing key stays published. Must be at least the
   * longest token lifetime any Resource may set (docs/keys.md); same bounds as shared/config.ts.
   */
  keyRetireAfterSeconds: v.optional(int(86_400, 366 * 86_400), 86_400),
  /** Key rotation schedule, an EventBridge `rate(...)` or `cron(...)` expression. */
  rotationSchedule: v.optional(v.pipe(v.string(), v.regex(/^(rate|cron)\(.+\)$/, 'must be rate(...) or cron(...)')), 'rate(1 day)'),
  /** Sets the account-wide API Gateway CloudWatch role that access logging needs (one per account and region). */
  apiGatewayAccountRole: v.optional(v.boolean(), true),
  docsUrl: v.optional(httpsUrl),
  /** Token issuer override; by default the custom domain, else the stage's execute-api URL. */
  issuer: v.optional(httpsUrl),
  customDomain: v.optional(CustomDomainSchema),
  alarms: v.optional(AlarmsSchema, {}),
  /** Without it the stage sends no email and registration answers 501. */
  email: v.optional(EmailSchema),
  waf: v.optional(WafSchema, {}),
});

export type StageSettings = v.InferOutput<typeof StageSettingsSchema>;
export type AlarmSettings = StageSettings['alarms'];

/** Whether the stage gets the WAF web ACL: its own setting, else on unless the stage is throwaway (`removalPolicy: destroy`). */
export function wafEnabled(stage: StageSettings): boolean {
  return stage.waf.enabled ?? stage.removalPolicy !== 'destroy';
}

export interface StageConfig extends StageSettings {
  /** Stage name: the API Gateway stage and the `IdentityService-<name>` stack. */
  readonly name: string;
}

const STAGE_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** Validates one stage's settings; throws with every bad field named. */
export function parseStageConfig(name: string, raw: unknown): StageConfig {
  if (!STAGE_NAME.test(name) || name.length > 32) {
    throw new Error(`Invalid stage name "${name}": use lower-case letters, digits and single hyphens (at most 32 characters).`);
  }
  const parsed = v.safeParse(StageSettingsSchema, raw ?? {});
  if (!parsed.success) {
    const lines = parsed.issues.map((i) => `  - ${v.getDotPath(i) ?? '(stage)'}: ${i.message}`);
    throw new Error(`Invalid stage config "${name}" (cdk.json context.stages.${name}):\n${lines.join('\n')}`);
  }
  return { name, ...parsed.output };
}

/** The stages to synthesize: all in `context.stages`, or only `-c stage=<name>`. */
export function selectStages(app: App): StageConfig[] {
  const stages: unknown = app.node.tryGetContext('stages');
  if (typeof stages !== 'object' || stages === null || Array.isArray(stages) || Object.keys(stages).length === 0) {
    throw new Error('cdk.json must define context.stages, e.g. {"stages": {"dev": {}}}.');
  }
  const all = stages as Record<string, unknown>;
  const only: unknown = app.node.tryGetContext('stage');
  if (only !== undefined) {
    if (typeof only !== 'string' || !(only in all)) {
      throw new Error(`Unknown stage "${String(only)}" (-c stage=...). Known stages: ${Object.keys(all).join(', ')}.`);
    }
    return [parseStageConfig(only, all[only])];
  }
  return Object.entries(all).map(([name, raw]) => parseStageConfig(name, raw));
}

/** Account and region: the stage's own, else the CLI's current credentials (env-agnostic if neither). */
export function stageEnv(config: StageConfig, env: Record<string, string | undefined> = process.env): Environment {
  return {
    account: config.account ?? env.CDK_DEFAULT_ACCOUNT,
    region: config.region ?? env.CDK_DEFAULT_REGION,
  };
}
