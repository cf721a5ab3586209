import type { KMSClient } from '@aws-sdk/client-kms';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../config.ts';
import { cacheCounter, type ServiceMetrics } from '../observability/service-metrics.ts';
import { keys as tableKeys } from '../store/core/table-keys.ts';
import { createKeyBackend } from './key-backend.ts';
import type { KeyStore, SecretBox } from './key-store.ts';
import { kmsSignKeyStore } from './kms-sign-key-store.ts';
import { SECRET_BOX_DATA_KEY, secretBox } from './secret-box.ts';
import { serviceSecrets } from './service-secrets.ts';
import { signingKeysRepository } from './signing-keys-repository.ts';
import { tableKeyStore } from './table-key-store.ts';

export interface KeyServicesDeps {
  config: Config;
  db: DynamoDBDocumentClient;
  now: () => Date;
  /** Injected in tests (aws-sdk-client-mock); otherwise built from config.region on first use. */
  kms?: KMSClient;
  /** Counts the key cache's hits and misses. */
  metrics?: ServiceMetrics;
  /** Wraps the KMS client built here (X-Ray, shared/observability/tracing.ts). */
  capture?: <C>(client: C) => C;
}

export interface KeyServices {
  keys: KeyStore;
  secretBox: SecretBox;
  serviceSecret(name: string): Promise<Buffer>;
  /** The secret box's data key item, for the token path's BatchGetItem (ServiceSecrets.feed). */
  dataKeyFeed: ItemFeed;
}

/** An item a caller may read in its own BatchGetItem on behalf of a service (key store, secrets). */
export interface ItemFeed {
  /** Keys to read, or [] when nothing is needed. */
  wanted(): { PK: string; SK: string }[];
  /** What that read found, by key. */
  offer(found: (key: { PK: string; SK: string }) => Record<string, unknown> | undefined): void;
}

/**
 * The key services of one process, by KEY_MODE (docs/keys.md): `envelope` (KMS-wrapped key pairs in
 * the table), `kms-sign` (KMS signs each token), `local` (AES-256-GCM master key file).
 */
export function createKeyServices({ config, db, now, kms, metrics, capture }: KeyServicesDeps): KeyServices {
  const backend = createKeyBackend(config, kms, capture);
  const counted = metrics ? { countLookup: cacheCounter(metrics, 'key') } : {};
  const repo = signingKeysRepository(db, config.tableName);
  const cacheTtlMs = config.keyCacheTtlMs;
  const keys =
    config.keyMode === 'kms-sign'
      ? kmsSignKeyStore({
          kms: backend.kms,
          keyId: requireSigningKeyId(config),
          repo,
          now,
          cacheTtlMs,
          retireAfterSeconds: config.keyRetireAfterSeconds,
          ...counted,
        })
      : tableKeyStore({ repo, source: backend.pairs, now, cacheTtlMs, ...counted });
  const serviceSecret = serviceSecrets({ db, tableName: config.tableName, wrapper: backend.wrapper, now });
  return {
    keys,
    secretBox: secretBox(backend.wrapper, () => serviceSecret(SECRET_BOX_DATA_KEY)),
    serviceSecret,
    dataKeyFeed: {
      wanted: () => serviceSecret.feed.wanted(SECRET_BOX_DATA_KEY),
      offer: (found) => serviceSecret.feed.offer(SECRET_BOX_DATA_KEY, found(tableKeys.serviceSecret(SECRET_BOX_DATA_KEY))),
    },
  };
}

function requireSigningKeyId(config: Config): string {
  if (!config.kmsSigningKeyId) throw new Error('KMS_SIGNING_KEY_ID is required when KEY_MODE is kms-sign');
  return config.kmsSigningKeyId;
}
