import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

export type KeyMode = 'envelope' | 'kms-sign';

export interface ServiceKeysProps {
  /**
   * `envelope`: signing keys are key pairs made by KMS and stored wrapped by `wrapKey`.
   * `kms-sign`: an asymmetric ECC_NIST_P256 KMS key signs every token (docs/design.md §4).
   * @default 'envelope'
   */
  readonly keyMode?: KeyMode;
  /**
   * Applies to both keys. `DESTROY` schedules deletion after the minimum 7-day window.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The stage's KMS keys. `wrapKey` (symmetric, yearly rotation) wraps signing key pairs, client
 * secrets and service secrets; `signingKey` exists only in `kms-sign` mode. Neither has an alias:
 * a physical name would collide between stages in one account; functions get ARNs from the env.
 */
export class ServiceKeys extends Construct {
  readonly keyMode: KeyMode;
  readonly wrapKey: kms.Key;
  readonly signingKey: kms.Key | undefined;

  constructor(scope: Construct, id: string, props: ServiceKeysProps = {}) {
    super(scope, id);
    this.keyMode = props.keyMode ?? 'envelope';
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const pendingWindow = Duration.days(removalPolicy === RemovalPolicy.RETAIN ? 30 : 7);
    this.wrapKey = new kms.Key(this, 'WrapKey', {
      description: 'Identity service: wraps signing keys and secrets',
      enableKeyRotation: true,
      removalPolicy,
      pendingWindow,
    });
    this.signingKey =
      this.keyMode === 'kms-sign'
        ? new kms.Key(this, 'SigningKey', {
            description: 'Identity service: signs tokens (ES256)',
            keySpec: kms.KeySpec.ECC_NIST_P256,
            keyUsage: kms.KeyUsage.SIGN_VERIFY,
            removalPolicy,
            pendingWindow,
          })
        : undefined;
  }
}
