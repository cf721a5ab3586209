import { KMSClient } from '@aws-sdk/client-kms';
import { sdkClientOptions } from '../aws/dependency-budget.ts';
import type { Config } from '../config.ts';
import { type KeyPairSource, kmsKeyPairSource, localKeyPairSource } from './key-pair-source.ts';
import type { KeyWrapper } from './key-wrapper.ts';
import { kmsKeyWrapper } from './kms-key-wrapper.ts';
import { localKeyWrapper } from './local-key-wrapper.ts';
import { loadOrCreateMasterKey } from './local-master-key.ts';

export interface KeyBackend {
  /** Wraps secrets: KMS in AWS, the master key file locally. */
  wrapper: KeyWrapper;
  /** Makes and opens signing key pairs (`envelope`, `local`). */
  pairs: KeyPairSource;
  /** The KMS client, built on first use (never in local mode). */
  kms: () => KMSClient;
}

/**
 * What stands behind the keys in each mode. Nothing is touched at construction: the KMS client and
 * the master key file are made or read on first use, so building a runtime does no I/O.
 */
export function createKeyBackend(config: Config, kms?: KMSClient, capture: <C>(client: C) => C = (c) => c): KeyBackend {
  if (config.keyMode === 'local') {
    const file = config.localMasterKeyFile;
    if (!file) throw new Error('LOCAL_MASTER_KEY_FILE is required in local key mode');
    let master: Buffer | undefined;
    const wrapper = localKeyWrapper(() => (master ??= loadOrCreateMasterKey(file)));
    return {
      wrapper,
      pairs: localKeyPairSource(wrapper),
      kms: () => {
        throw new Error('No KMS in local key mode');
      },
    };
  }
  const keyId = config.kmsKeyId;
  if (!keyId) throw new Error('KMS_KEY_ID is required when KEY_MODE is not local');
  let client = kms;
  // `capture`: X-Ray subsegments per call where the function is traced (shared/observability/tracing.ts).
  const getKms = () => (client ??= capture(new KMSClient({ region: config.region, ...sdkClientOptions(config.budgets.kms) })));
  return { wrapper: kmsKeyWrapper(getKms, keyId), pairs: kmsKeyPairSource(getKms, keyId), kms: getKms };
}
