import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * `db` as a container that dies part-way: the first `transactions` TransactWriteItems calls go
 * through, then every call (of any kind) throws, as if the Lambda had timed out there. A cascade
 * run on it stops between two of its committed steps; the test then re-runs it on the real db.
 */
export function crashingDb(db: DynamoDBDocumentClient, transactions: number): DynamoDBDocumentClient {
  let left = transactions;
  let crashed = false;
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== 'send') return Reflect.get(target, prop, receiver);
      return async (cmd: object, ...rest: unknown[]) => {
        if (cmd.constructor.name === 'TransactWriteCommand' && !crashed) crashed = left-- <= 0;
        if (crashed) throw new Error('simulated crash: the container stopped here');
        return (target.send as (...a: unknown[]) => unknown)(cmd, ...rest);
      };
    },
  });
}
