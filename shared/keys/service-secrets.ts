import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { internalError, isAppError } from '../errors.ts';
import { keys } from '../store/core/table-keys.ts';
import { translateError } from '../store/core/translate-error.ts';
import { contexts, type KeyWrapper } from './key-wrapper.ts';

const SECRET_BYTES = 32;

export interface ServiceSecretsOptions {
  db: DynamoDBDocumentClient;
  tableName: string;
  wrapper: KeyWrapper;
  now: () => Date;
}

/**
 * Named 256-bit service secrets (e.g. `cursor`, the HMAC key of list cursors). Item: PK
 * `SERVICE_SECRETS`, SK `SECRET#{name}`, `sealed` (the secret wrapped with context
 * `{purpose: service-secret, name}`), `wrapped_by`, `created_at`. Created on first use with a
 * conditional put; when two containers race, the loser re-reads and both use the stored secret.
 * Cached per process, so a warm container pays nothing and a cold one one Decrypt per name.
 * In AWS the stage bootstrap (functions/admin/bootstrap.ts) creates them at deploy time, so
 * request-path functions only read them.
 */
export interface ServiceSecrets {
  (name: string): Promise<Buffer>;
  /**
   * Lets a caller fold the read of a secret's item into its own BatchGetItem (the token path:
   * docs/keys.md "Secrets at rest"): `wanted` gives the item's key while this process has not
   * loaded the secret, `offer` hands over what that read found. The item is only kept: it is
   * unwrapped (one KMS Decrypt) when the secret is first used, not when it is offered.
   */
  readonly feed: {
    wanted(name: string): { PK: string; SK: string }[];
    offer(name: string, item: Record<string, unknown> | undefined): void;
  };
}

export function serviceSecrets(opts: ServiceSecretsOptions): ServiceSecrets {
  const { db, tableName, wrapper, now } = opts;
  const cache = new Map<string, Promise<Buffer>>();
  /** Items read by someone else's BatchGetItem, not yet unwrapped. */
  const offered = new Map<string, Record<string, unknown>>();

  const read = async (name: string): Promise<Buffer | undefined> => {
    let item: Record<string, unknown> | undefined = offered.get(name);
    offered.delete(name);
    if (!item) {
      try {
        ({ Item: item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.serviceSecret(name), ConsistentRead: true })));
      } catch (err) {
        return translateError(err);
      }
    }
    if (!item) return undefined;
    if (item.wrapped_by !== wrapper.kind || typeof item.sealed !== 'string') {
      throw internalError({ detail: `service secret ${name} is wrapped by ${String(item.wrapped_by)}, this stage uses ${wrapper.kind}` });
    }
    return wrapper.unwrap(item.sealed, contexts.serviceSecret(name));
  };

  const loadOrCreate = async (name: string): Promise<Buffer> => {
    const existing = await read(name);
    if (existing) return existing;
    try {
      return await create(name);
    } catch (err) {
      // In AWS the stage bootstrap creates the secrets; read-only functions may not (no kms:Encrypt,
      // no table write). Say that instead of leaving an AccessDenied to be puzzled over.
      if (awsErrorName(err) !== 'AccessDeniedException') throw err;
      throw internalError({
        detail: `service secret "${name}" does not exist and this function may not create it: the stage has not been bootstrapped (deploy it again, or run npm run bootstrap -- --stage <stage>; docs/deploy.md)`,
      });
    }
  };

  const create = async (name: string): Promise<Buffer> => {
    const secret = randomBytes(SECRET_BYTES);
    const sealed = await wrapper.wrap(secret, contexts.serviceSecret(name));
    try {
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...keys.serviceSecret(name),
            type: 'ServiceSecret',
            schema_version: 1,
            name,
            sealed,
            wrapped_by: wrapper.kind,
            created_at: now().toISOString(),
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return secret;
    } catch (err) {
      if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') return translateError(err);
    }
    const winner = await read(name);
    if (!winner) throw internalError({ detail: `service secret ${name} vanished after a lost race` });
    return winner;
  };

  const secret = async (name: string) => {
    let pending = cache.get(name);
    if (!pending) {
      pending = loadOrCreate(name).catch((err: unknown) => {
        cache.delete(name);
        throw err;
      });
      cache.set(name, pending);
    }
    // A copy: a caller that zeroes or reuses its buffer must not change the cached secret.
    return Buffer.from(await pending);
  };
  return Object.assign(secret, {
    feed: {
      wanted: (name: string) => (cache.has(name) || offered.has(name) ? [] : [keys.serviceSecret(name)]),
      offer(name: string, item: Record<string, unknown> | undefined) {
        // A missing item is not remembered: the secret's own read then creates it or says why not.
        if (item && !cache.has(name)) offered.set(name, item);
      },
    },
  });
}

/** The AWS error name, also behind our translation of KMS errors (translate-kms-error.ts keeps it as `cause`). */
function awsErrorName(err: unknown): string | undefined {
  const e = isAppError(err) ? err.cause : err;
  return (e as { name?: string } | undefined)?.name;
}
