import { type DynamoDBDocumentClient, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { RetryableConflict, withRetries } from '../core/retry.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Per-user caps on what logins leave behind (docs/security.md "Caps"): the user item keeps, for
 * each capped kind, a list of the user's entries, oldest first, each `{expiry}.{id}` (the expiry
 * in epoch seconds, 0 for never). Adding an entry is part of the transaction that stores the new
 * one, so no concurrent login is lost and the common case costs no call of its own:
 * - below the cap, the entry is appended (`list_append`) on condition that the list is still below
 *   it;
 * - at the cap, the list as last seen is written back without its oldest live entries, on
 *   condition that it is still exactly that list, and the same transaction ends them (`end`).
 *   Entries already expired are dropped without a write.
 * A condition that fails returns the user item (`ALL_OLD`): from it the next attempt knows the list
 * and tries again, so n parallel logins past the cap leave exactly `cap` entries.
 */
export interface CappedList {
  /** The list attribute on the user item. */
  attribute: string;
  cap: number;
  /** The write that ends an entry pushed out of the list (within the same transaction). */
  end(id: string): TransactItem;
}

/** The user item's own condition in the transaction (besides the list's), its names and values. */
export interface UserCondition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
  /** Whether a user item as read (DynamoDB JSON; undefined: none) fails `expression`. */
  refuses(item: RawItem | undefined): boolean;
}

/** An item as a failed condition returns it (DynamoDB JSON, not unmarshalled). */
export type RawItem = Record<string, { S?: string; N?: string; BOOL?: boolean; L?: { S?: string }[] } | undefined>;

/** At most this many entries are ended per transaction (DynamoDB allows 100 items in one). */
const MAX_ENDS = 25;

export const cappedEntry = (id: string, expiresAtSeconds: number | null): string => `${expiresAtSeconds ?? 0}.${id}`;

const entryId = (entry: string) => entry.slice(entry.indexOf('.') + 1);
const entryExpired = (entry: string, nowSeconds: number) => {
  const expires = Number(entry.slice(0, entry.indexOf('.')));
  return expires > 0 && expires <= nowSeconds;
};

/**
 * The list after adding `entry` to `seen` (a list at or past the cap): expired entries dropped,
 * then the oldest live ones pushed out until the new one fits (at most MAX_ENDS at a time, so a
 * cap lowered a long way shrinks the list over several logins).
 */
export function pushOut(seen: readonly string[], entry: string, cap: number, nowSeconds: number): { kept: string[]; ended: string[] } {
  const newId = entryId(entry);
  const kept = seen.filter((e) => !entryExpired(e, nowSeconds) && entryId(e) !== newId);
  const ended: string[] = [];
  while (kept.length >= cap && ended.length < MAX_ENDS) {
    const id = entryId(kept.shift()!);
    if (!ended.includes(id)) ended.push(id);
  }
  return { kept: [...kept, entry], ended };
}

/**
 * Sends `items` (the new record's writes) with the user item's update that lists `entry`, and the
 * writes that end what it pushes out. `userAt` is the user update's index in the transaction
 * (after `items`), for the caller reading other cancellation reasons. Returns 'user-refused' when
 * the user item fails `user` (missing, blocked...); any other failure is the caller's to read,
 * passed to `failed` with the cancellation reasons (it returns its outcome or throws).
 */
export async function addWithCap<T>(
  db: DynamoDBDocumentClient,
  tableName: string,
  args: {
    userId: string;
    list: CappedList;
    entry: string;
    items: TransactItem[];
    user: UserCondition;
    nowSeconds: () => number;
    /** Any cancellation not of the user item's condition: the caller's outcome, or it throws. */
    failed: (reasons: (string | undefined)[] | undefined, err: unknown) => T;
  },
): Promise<T | 'added' | 'user-refused'> {
  const { list, user } = args;
  /** The list as the last failed condition returned it; undefined: not seen, so append. */
  let seen: string[] | undefined;
  return withRetries(
    async () => {
      const pushed = seen && seen.length >= list.cap ? pushOut(seen, args.entry, list.cap, args.nowSeconds()) : undefined;
      const names = { ...user.names, '#list': list.attribute };
      const update: TransactItem = {
        Update: {
          TableName: tableName,
          Key: keys.user(args.userId),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          ExpressionAttributeNames: names,
          ...(pushed
            ? {
                UpdateExpression: 'SET #list = :kept',
                ConditionExpression: `${user.expression} AND #list = :seen`,
                ExpressionAttributeValues: { ...user.values, ':kept': pushed.kept, ':seen': seen },
              }
            : {
                UpdateExpression: 'SET #list = list_append(if_not_exists(#list, :empty), :entry)',
                ConditionExpression: `${user.expression} AND (attribute_not_exists(#list) OR size(#list) < :cap)`,
                ExpressionAttributeValues: { ...user.values, ':empty': [], ':entry': [args.entry], ':cap': list.cap },
              }),
        },
      };
      try {
        await db.send(
          new TransactWriteCommand({ TransactItems: [...args.items, update, ...(pushed?.ended ?? []).map((id) => list.end(id))] }),
        );
        return 'added' as const;
      } catch (err) {
        const e = err as { name?: string; CancellationReasons?: { Code?: string; Item?: RawItem }[] };
        const reasons = e.name === 'TransactionCanceledException' ? (e.CancellationReasons ?? []) : undefined;
        const mine = reasons?.[args.items.length];
        if (mine?.Code === 'ConditionalCheckFailed') {
          if (user.refuses(mine.Item)) return 'user-refused' as const;
          // The list changed, or is full: the next attempt starts from it as it is now.
          seen = (mine.Item?.[list.attribute]?.L ?? []).flatMap((v) => (typeof v.S === 'string' ? [v.S] : []));
          throw new RetryableConflict('The user item changed; retry.', err);
        }
        if (reasons?.some((r) => r.Code === 'TransactionConflict') || e.name === 'TransactionConflictException') {
          throw new RetryableConflict('A concurrent change of the user was in progress.', err);
        }
        if (reasons)
          return args.failed(
            reasons.map((r) => r.Code),
            err,
          );
        return translateError(err);
      }
    },
    { attempts: 25 },
  );
}
