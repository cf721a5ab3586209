import { Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Access } from '#shared/routes/route.ts';
import { TABLE_INDEXES } from '#shared/store/core/table-definition.ts';
import type { KeyMode, ServiceKeys } from './service-keys.ts';

export type KmsOp = Access['kms'][number];

const KMS_OPS: readonly KmsOp[] = ['decrypt', 'encrypt', 'sign', 'generate'];

/** What a function may touch; `undefined` table = no table access at all (the fallback function). */
export interface AccessProfile {
  readonly table?: Access['table'] | undefined;
  readonly kms: readonly KmsOp[];
  /** Sends email: `ses:SendEmail` (only when the stage configures a sender, EmailSender below). */
  readonly email?: boolean | undefined;
}

/** The stage's email sender (infra/stages.ts `email`): what the sending functions may send as. */
export interface EmailSenderSettings {
  /** The From address; the grant is conditioned on it (`ses:FromAddress`). */
  readonly from: string;
  /** The SES identity that authorizes it; the grant's resource when given, else every identity of the account and region. */
  readonly identityArn?: string | undefined;
}

export const NO_ACCESS: AccessProfile = { table: undefined, kms: [] };

/** A handler serving several routes gets the union of their access (the most any route needs). */
export function unionAccess(accesses: readonly AccessProfile[]): AccessProfile {
  const table = accesses.some((a) => a.table === 'readwrite') ? 'readwrite' : accesses.some((a) => a.table === 'read') ? 'read' : undefined;
  const kms = KMS_OPS.filter((op) => accesses.some((a) => a.kms.includes(op)));
  return { table, kms, ...(accesses.some((a) => a.email === true) ? { email: true } : {}) };
}

/** The IAM actions a profile turns into, per key (see the table on AccessRoles). */
export interface EffectiveGrants {
  readonly table: AccessProfile['table'];
  readonly wrapKey: readonly string[];
  readonly signingKey: readonly string[];
  /** `ses:SendEmail` as the stage's sender. */
  readonly sendEmail: boolean;
}

export function effectiveGrants(access: AccessProfile, keyMode: KeyMode, emailConfigured = false): EffectiveGrants {
  const wrap = new Set<string>();
  const signing = new Set<string>();
  for (const op of access.kms) {
    if (op === 'decrypt') wrap.add('kms:Decrypt');
    if (op === 'encrypt') wrap.add('kms:Encrypt');
    if (op === 'generate') {
      wrap.add('kms:GenerateDataKeyPairWithoutPlaintext');
      if (keyMode === 'kms-sign') signing.add('kms:GetPublicKey');
    }
    if (op === 'sign' && keyMode === 'kms-sign') for (const a of ['kms:Sign', 'kms:GetPublicKey']) signing.add(a);
    // envelope `sign` needs only `decrypt` (listed next to it): the stage bootstrap makes the first
    // key pairs at deploy time (infra/constructs/stage-bootstrap.ts), rotation the later ones.
  }
  return {
    table: access.table,
    wrapKey: [...wrap].sort(),
    signingKey: [...signing].sort(),
    sendEmail: emailConfigured && access.email === true,
  };
}

/**
 * Name of a set of grants, e.g. `ReadwriteDecryptGenerateKeyPair`; also the role's construct id.
 * Named after the grants rather than the route's profile so that profiles granting the same
 * actions (envelope-mode `sign` and `generate`) share one role.
 */
export function grantsName(g: EffectiveGrants): string {
  const short: Record<string, string> = {
    'kms:GenerateDataKeyPairWithoutPlaintext': 'GenerateKeyPair',
    'kms:GetPublicKey': 'PublicKey',
  };
  const name = (a: string) => short[a] ?? a.replace('kms:', '');
  const table = g.table ? g.table[0]!.toUpperCase() + g.table.slice(1) : 'NoTable';
  return [table, ...g.wrapKey.map(name), ...g.signingKey.map((a) => `Signing${name(a)}`), ...(g.sendEmail ? ['SendEmail'] : [])].join('');
}

/**
 * Table actions per access level. Not `grantReadData` / `grantReadWriteData`: those include
 * `dynamodb:Scan` (docs/design.md §3.6: no Scan on any request path) and stream reads (the table has no
 * stream). Transactions need no action of their own: DynamoDB checks each item's Put, Update,
 * Delete or ConditionCheck.
 */
export const TABLE_READ_ACTIONS: readonly string[] = [
  'dynamodb:BatchGetItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
  'dynamodb:GetItem',
  'dynamodb:Query',
];
export const TABLE_WRITE_ACTIONS: readonly string[] = [
  'dynamodb:BatchWriteItem',
  'dynamodb:DeleteItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
];

export interface AccessRolesProps {
  readonly table: dynamodb.ITableV2;
  readonly keys: ServiceKeys;
  /** The log group every function writes to; each role may write only there. */
  readonly logGroup: logs.ILogGroup;
  /** @default - no sender: no role may send email */
  readonly email?: EmailSenderSettings | undefined;
}

/**
 * One IAM role per distinct set of grants, shared by every function that needs exactly those. A
 * role per function would add two resources (role + policy) per handler and push a ~100-handler
 * API past CloudFormation's 500-resource limit; functions with identical grants gain nothing from
 * separate roles. The route table's `access` field maps to the narrowest grant:
 *
 * | access            | grant                                                                    |
 * |-------------------|--------------------------------------------------------------------------|
 * | table `read`      | TABLE_READ_ACTIONS (Get/BatchGet/Query/ConditionCheck/DescribeTable on the table and each named index; no Scan, no writes) |
 * | table `readwrite` | TABLE_READ_ACTIONS + TABLE_WRITE_ACTIONS (Put/Update/Delete/BatchWrite on the table only; no Scan) |
 * | kms `decrypt`     | `kms:Decrypt` on the wrap key                                             |
 * | kms `encrypt`     | `kms:Encrypt` on the wrap key (secrets are wrapped with Encrypt)           |
 * | kms `generate`    | `kms:GenerateDataKeyPairWithoutPlaintext` on the wrap key; kms-sign mode: also `kms:GetPublicKey` on the signing key |
 * | kms `sign`        | envelope: nothing beyond `decrypt` (bootstrap makes the first key pairs at deploy time); kms-sign: `kms:Sign`, `kms:GetPublicKey` on the signing key |
 * | `email`           | `ses:SendEmail` on the stage's SES identity (every identity of the account and region when the stage names none), only with `ses:FromAddress` = the stage's sender; nothing when the stage has no sender |
 */
export class AccessRoles extends Construct {
  private readonly roles = new Map<string, iam.Role>();
  private readonly props: AccessRolesProps;

  constructor(scope: Construct, id: string, props: AccessRolesProps) {
    super(scope, id);
    this.props = props;
  }

  /** The role for this profile, created on first use. */
  roleFor(access: AccessProfile): iam.Role {
    const grants = effectiveGrants(access, this.props.keys.keyMode, this.props.email !== undefined);
    const name = grantsName(grants);
    let role = this.roles.get(name);
    if (!role) {
      role = this.createRole(name, grants);
      this.roles.set(name, role);
    }
    return role;
  }

  /** Roles in use, by grants name (tests and docs read them). */
  get byName(): ReadonlyMap<string, iam.IRole> {
    return this.roles;
  }

  private createRole(name: string, grants: EffectiveGrants): iam.Role {
    const { table, keys, logGroup } = this.props;
    const role = new iam.Role(this, name, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Identity service functions granted ${name}`,
    });
    // Instead of AWSLambdaBasicExecutionRole (logs:* on every group): write to our one log group.
    logGroup.grantWrite(role);
    if (grants.table) {
      // Reads on the table and each named index (not `table/index/*`: cdk-nag IAM5); writes only on
      // the table, since DynamoDB maintains the indexes itself.
      role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...TABLE_READ_ACTIONS], resources: tableAndIndexArns(table) }));
      if (grants.table === 'readwrite') {
        role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...TABLE_WRITE_ACTIONS], resources: [table.tableArn] }));
      }
    }
    if (grants.wrapKey.length > 0) keys.wrapKey.grant(role, ...grants.wrapKey);
    if (grants.signingKey.length > 0 && keys.signingKey) keys.signingKey.grant(role, ...grants.signingKey);
    if (grants.sendEmail && this.props.email) role.addToPrincipalPolicy(sendEmailStatement(Stack.of(this), this.props.email));
    return role;
  }
}

/** The table's ARN and one ARN per GSI of shared/store/core/table-definition.ts. */
export function tableAndIndexArns(table: dynamodb.ITableV2): string[] {
  return [table.tableArn, ...TABLE_INDEXES.map((i) => `${table.tableArn}/index/${i.indexName}`)];
}

/**
 * `ses:SendEmail` (SESv2 SendEmail authorizes as `ses:SendEmail` on the identity, and on the
 * configuration set if one is used: none is) as the stage's sender only: the identity named by the
 * stage, else any identity of this account and region, and in either case only with the stage's
 * From address, so a compromised sending function cannot mail as anyone else.
 */
export function sendEmailStatement(stack: Stack, email: EmailSenderSettings): iam.PolicyStatement {
  return new iam.PolicyStatement({
    actions: ['ses:SendEmail'],
    resources: [email.identityArn ?? stack.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })],
    conditions: { StringEquals: { 'ses:FromAddress': email.from } },
  });
}
