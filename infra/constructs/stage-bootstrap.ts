import { CustomResource, Duration, Lazy, Stack } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct, type IDependable } from 'constructs';
import type { AccessProfile } from './access-roles.ts';
import { BACKGROUND_BUDGET_ENV, type FunctionDefaults, ServiceFunction } from './service-function.ts';

/** The bootstrap handler (not an HTTP route); exports `handler`. */
export const BOOTSTRAP_HANDLER = 'functions/admin/bootstrap';

/** Retries (IAM propagation on a first deploy) and two RSA key pairs fit easily; CloudFormation waits for it, no caller does. */
export const BOOTSTRAP_TIMEOUT = Duration.minutes(2);

/**
 * Bootstrap writes records (`readwrite`), creates the service secrets (`encrypt`), opens the
 * Default Client's sealed secret to show it once and reads existing secrets (`decrypt`), and makes
 * the first signing keys (`generate`; in kms-sign mode that reads the KMS key's public half).
 */
export const BOOTSTRAP_ACCESS: AccessProfile = { table: 'readwrite', kms: ['decrypt', 'encrypt', 'generate'] };

export interface StageBootstrapProps {
  /** Role with BOOTSTRAP_ACCESS. */
  readonly role: iam.IRole;
  readonly functionDefaults: FunctionDefaults;
  /**
   * What must exist before bootstrap runs: the table, the KMS keys, the role with its policy.
   * @default - only what the function's environment references
   */
  readonly dependsOn?: readonly IDependable[];
}

/**
 * Runs the stage bootstrap (functions/admin/bootstrap.ts) as a CloudFormation custom resource whose
 * service token is the function itself: two resources (function and custom resource) and no
 * Lambda permission, since CloudFormation invokes with the deployer's credentials. The
 * `custom_resources.Provider` framework would add a framework function, its role and policy, and
 * `AwsCustomResource` would add a singleton function and role and return the invoke payload as
 * resource data, where CloudFormation shows it. Here the function answers CloudFormation itself,
 * with the Default Client's id only.
 *
 * It runs on the first deploy and on every deploy that changes the function's code or environment
 * (issuer, table, keys, settings): those are the properties below. A property changing on every
 * synth (a timestamp) would make each `cdk deploy` an update and `cdk diff` never clean; a deploy
 * that changes neither has nothing new to bootstrap, and `npm run bootstrap` runs it on demand.
 */
export class StageBootstrap extends Construct {
  readonly function: ServiceFunction;
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: StageBootstrapProps) {
    super(scope, id);
    this.function = new ServiceFunction(this, 'Function', {
      ...props.functionDefaults,
      environment: { ...props.functionDefaults.environment, ...BACKGROUND_BUDGET_ENV },
      handlerModule: BOOTSTRAP_HANDLER,
      role: props.role,
      timeout: BOOTSTRAP_TIMEOUT,
    });
    const cfn = this.function.node.defaultChild as lambda.CfnFunction;
    this.resource = new CustomResource(this, 'Run', {
      serviceToken: this.function.functionArn,
      resourceType: 'Custom::IdentityServiceBootstrap',
      // A lost response fails the deploy after this, not after CloudFormation's default hour.
      serviceTimeout: Duration.minutes(5),
      properties: {
        CodeVersion: Lazy.any({ produce: () => codeVersion(cfn) }),
        Environment: Lazy.any({ produce: () => environmentOf(cfn) }),
      },
    });
    for (const d of props.dependsOn ?? []) this.resource.node.addDependency(d);
  }
}

/** The bundle's asset key (its content hash), or the inline code in tests. */
function codeVersion(cfn: lambda.CfnFunction): unknown {
  const code = cfn.code as lambda.CfnFunction.CodeProperty;
  return code.s3Key ?? code.zipFile ?? code.imageUri;
}

/** The function's variables as the template will hold them (Function renders them lazily). */
function environmentOf(cfn: lambda.CfnFunction): unknown {
  const env = Stack.of(cfn).resolve(cfn.environment) as { variables?: unknown; Variables?: unknown } | undefined;
  return env?.variables ?? env?.Variables;
}
