import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { AccessProfile } from './access-roles.ts';
import { BACKGROUND_BUDGET_ENV, type FunctionDefaults, ServiceFunction } from './service-function.ts';

/** The scheduled rotation handler (docs/design.md §4); exports `handler`. */
export const ROTATE_KEYS_HANDLER = 'functions/keys/rotate-keys';

/** Rotation is no request path: a few reads and writes and a key pair, retried by EventBridge. */
export const ROTATION_TIMEOUT = Duration.minutes(1);

/**
 * Rotation reads and writes key records and makes the next key pair (`generate`); in kms-sign mode
 * `generate` is reading the KMS key's public half to publish it. No `decrypt`: rotation never opens
 * a private key (shared/keys/rotate-keys.ts only generates pairs and moves records).
 */
export const ROTATION_ACCESS: AccessProfile = { table: 'readwrite', kms: ['generate'] };

export interface KeyRotationProps {
  /** Role with ROTATION_ACCESS. */
  readonly role: iam.IRole;
  readonly functionDefaults: FunctionDefaults;
  /** @default events.Schedule.rate(Duration.days(1)) */
  readonly schedule?: events.Schedule;
}

/**
 * Runs key rotation on a schedule: publishes the next key before it signs, demotes the current one,
 * drops keys older than the longest token lifetime. Rotation is idempotent, so EventBridge's retries
 * (and an occasional duplicate delivery) are harmless.
 */
export class KeyRotation extends Construct {
  readonly function: ServiceFunction;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: KeyRotationProps) {
    super(scope, id);
    this.function = new ServiceFunction(this, 'Function', {
      ...props.functionDefaults,
      environment: { ...props.functionDefaults.environment, ...BACKGROUND_BUDGET_ENV },
      handlerModule: ROTATE_KEYS_HANDLER,
      role: props.role,
      timeout: ROTATION_TIMEOUT,
    });
    this.rule = new events.Rule(this, 'Schedule', {
      description: 'Identity service signing-key rotation',
      schedule: props.schedule ?? events.Schedule.rate(Duration.days(1)),
      targets: [new targets.LambdaFunction(this.function, { retryAttempts: 2, maxEventAge: Duration.hours(1) })],
    });
  }
}
