import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const READS = new Set(['GetCommand', 'BatchGetCommand', 'QueryCommand', 'ScanCommand', 'TransactGetCommand']);

export interface DbCalls {
  /** Command class names in call order (`BatchGetCommand`, `QueryCommand`, ...). */
  readonly names: string[];
  /** How many of them read. */
  reads(): number;
  reset(): void;
}

/** `db` with every `send` recorded: a container built on it shows what it asks of DynamoDB. */
export function countingDb(db: DynamoDBDocumentClient): { db: DynamoDBDocumentClient; calls: DbCalls } {
  const names: string[] = [];
  const calls: DbCalls = {
    names,
    reads: () => names.filter((n) => READS.has(n)).length,
    reset: () => {
      names.length = 0;
    },
  };
  const wrapped = new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === 'send') {
        return (cmd: object, ...rest: unknown[]) => {
          names.push(cmd.constructor.name);
          return (target.send as (...a: unknown[]) => unknown)(cmd, ...rest);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  return { db: wrapped, calls };
}
