import { type DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type RevocationRef, verifierDigest } from '../../records/revocation-ref.ts';
import { queryAll } from '../core/reads/query-all.ts';
import { getItem } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { isLive, ttlOf } from '../core/ttl.ts';
import type { Key } from '../core/writes.ts';

type Item = Record<string, unknown>;

/**
 * Revoked access tokens (RFC 7009 §2), bound to what verified the token and to its client
 * (docs/contract.md §8; shared/records/revocation-ref.ts). Item: PK `REVOKED#{jti}`, SK
 * `BOUND#{sha256(verifier)}`, `verifier`, `client_id` (the token's client, who revoked it),
 * `ttl` (the token's exp: after that the token is dead anyway). A token is revoked when the entry
 * of its own binding exists, names its client and is live.
 *
 * Entries written before the binding (SK `REVOKED`, schema_version 1, `client_id` = the
 * revoker, which was the token's client) still count for a token of that same client; they
 * expire with the tokens they name (at most KEY_RETIRE_AFTER_SECONDS after this release), after
 * which `keys.revokedTokenUnbound` can go.
 *
 * Every revocation is also appended to the **revocation log** (PK `REVOCATION_LOG`, SK
 * `{revoked_at}#{jti}#{verifier digest}`, same attributes and ttl), in the same transaction: the
 * per-container follower (followed-revocations.ts) reads what was revoked since its last read
 * with one Query a second instead of one read per token (a range of the sort key: entries gone
 * past it cost nothing to skip). Entries older than the log were copied
 * into it by bootstrap (shared/bootstrap/backfill-revocation-log.ts), which then records
 * `BOOTSTRAP / MIGRATION#revocation-log`; until that marker exists nobody trusts the log alone.
 */
export interface RevocationsRepository {
  /**
   * Records the revocation. `conflict`: this jti, under this verifier, is already revoked as
   * another client's token (only someone who holds the verifier's secret can make such a token):
   * nothing is recorded.
   */
  revoke(ref: RevocationRef, expiresAt: Date): Promise<'revoked' | 'conflict'>;
  isRevoked(ref: RevocationRef): Promise<boolean>;
  /** The log, for readers that follow it (the repository itself has it; a cache in front need not). */
  readonly log?: RevocationLog;
  /** Lets a caller fold the revocation check into its own BatchGetItem (cached-revocations.ts). */
  readonly feed?: RevocationFeed;
}

export interface RevocationFeed {
  /** The items to read for `ref`, or [] when the answer is already known here. */
  wanted(ref: RevocationRef): Key[];
  /** What that read found, by item (undefined: no such item). */
  offer(ref: RevocationRef, found: (key: Key) => Item | undefined): void;
}

/** One revocation as the log holds it; `verifier` is undefined for an entry of the unbound format. */
export interface LoggedRevocation {
  jti: string;
  clientId: string;
  verifier: string | undefined;
  /** When the token expires (the entry's ttl), epoch ms: after that the entry no longer matters. */
  expiresAtMs: number;
}

export interface RevocationLog {
  /** The item whose presence says the log holds every live revocation (bootstrap's backfill has completed). */
  readonly completeMarker: Key;
  complete(): Promise<boolean>;
  /** The live entries revoked at or after `fromIso`, consistently read. */
  read(fromIso: string): Promise<LoggedRevocation[]>;
}

/** The name of the migration that copies revocations made before the log into it. */
export const REVOCATION_LOG_MIGRATION = 'revocation-log';

/** The log item of a revocation (also written by the backfill). */
export function revocationLogItem(ref: Omit<RevocationRef, 'verifier'> & { verifier: string | undefined }, revokedAt: Date, ttl: number) {
  const iso = revokedAt.toISOString();
  return {
    PK: keys.revocationLog,
    SK: `${iso}#${ref.jti}#${ref.verifier === undefined ? 'UNBOUND' : verifierDigest(ref as RevocationRef)}`,
    type: 'RevocationLogEntry',
    schema_version: 1,
    jti: ref.jti,
    client_id: ref.clientId,
    ...(ref.verifier === undefined ? {} : { verifier: ref.verifier }),
    revoked_at: iso,
    ttl,
  };
}

/** The items that can revoke the token of `ref`: its bound entry and the old unbound one. */
export const revocationKeys = (ref: RevocationRef): Key[] => [
  keys.revokedToken(ref.jti, verifierDigest(ref)),
  keys.revokedTokenUnbound(ref.jti),
];

/** Do these stored items (any entries of the token's jti) revoke the token of `ref`? */
export function revokes(ref: RevocationRef, items: readonly (Item | undefined)[], now: Date): boolean {
  const bound = keys.revokedToken(ref.jti, verifierDigest(ref)).SK;
  const unbound = keys.revokedTokenUnbound(ref.jti).SK;
  return items.some((i) => i !== undefined && isLive(i, now) && i.client_id === ref.clientId && (i.SK === bound || i.SK === unbound));
}

export function revocationsRepository(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
): RevocationsRepository & { readonly log: RevocationLog } {
  return {
    async revoke(ref, expiresAt) {
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: tableName,
                  Item: {
                    ...keys.revokedToken(ref.jti, verifierDigest(ref)),
                    type: 'RevokedToken',
                    schema_version: 2,
                    verifier: ref.verifier,
                    client_id: ref.clientId,
                    ttl: ttlOf(expiresAt),
                  },
                  // A jti is bound to the first client that revoked it under this verifier: a second
                  // client's token with the same jti and verifier is a forgery and must not take it over.
                  ConditionExpression: 'attribute_not_exists(PK) OR client_id = :client',
                  ExpressionAttributeValues: { ':client': ref.clientId },
                },
              },
              { Put: { TableName: tableName, Item: revocationLogItem(ref, now(), ttlOf(expiresAt)) } },
            ],
          }),
        );
        return 'revoked';
      } catch (err) {
        const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
        if (e.name === 'TransactionCanceledException' && e.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return 'conflict';
        return translateError(err);
      }
    },
    async isRevoked(ref) {
      // One Query of the jti's partition reads the bound entry and the unbound one together
      // (one read unit: the entries are a few dozen bytes).
      try {
        const { Items } = await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: { ':pk': keys.revokedTokenPartition(ref.jti) },
          }),
        );
        return revokes(ref, Items ?? [], now());
      } catch (err) {
        return translateError(err);
      }
    },
    log: {
      completeMarker: keys.migrationDone(REVOCATION_LOG_MIGRATION),
      complete: async () => (await getItem(db, tableName, keys.migrationDone(REVOCATION_LOG_MIGRATION), now())) !== undefined,
      async read(fromIso) {
        const items = await queryAll(db, {
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk AND SK >= :from',
          ExpressionAttributeValues: { ':pk': keys.revocationLog, ':from': fromIso },
          ConsistentRead: true,
        });
        const at = now();
        return items.filter((i) => isLive(i, at)).map(loggedRevocation);
      },
    },
  };
}

export const loggedRevocation = (i: Record<string, unknown>): LoggedRevocation => ({
  jti: String(i.jti),
  clientId: String(i.client_id),
  verifier: typeof i.verifier === 'string' ? i.verifier : undefined,
  expiresAtMs: typeof i.ttl === 'number' ? i.ttl * 1000 : Number.POSITIVE_INFINITY,
});
