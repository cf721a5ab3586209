import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * `db` while another transaction holds an item: the first `conflicts` calls of the given command
 * kind fail with DynamoDB's `TransactionConflictException` (what a single-item write gets while a
 * TransactWriteItems on the same item is in flight; the SDK does not retry it), then every call
 * goes to the real table. `count()` tells how many were refused.
 */
export function conflictingDb(
  db: DynamoDBDocumentClient,
  command: string,
  conflicts: number,
): { db: DynamoDBDocumentClient; count: () => number } {
  let refused = 0;
  const proxy = new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== 'send') return Reflect.get(target, prop, receiver);
      return async (cmd: object, ...rest: unknown[]) => {
        if (cmd.constructor.name === command && refused < conflicts) {
          refused++;
          throw Object.assign(new Error('Transaction is ongoing for the item'), { name: 'TransactionConflictException' });
        }
        return (target.send as (...a: unknown[]) => unknown)(cmd, ...rest);
      };
    },
  });
  return { db: proxy, count: () => refused };
}
