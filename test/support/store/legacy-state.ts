import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AsymmetricAlg } from '#shared/keys/key-store.ts';
import { keys as tableKeys } from '#shared/store/core/table-keys.ts';
import type { TestTable } from '../service/dynamodb.ts';

/** The stored state item of `alg` (consistent GetItem). */
export async function stateItemOf(table: TestTable, alg: AsymmetricAlg): Promise<Record<string, unknown> | undefined> {
  const { Item } = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: tableKeys.signingKeyState(alg), ConsistentRead: true }),
  );
  return Item;
}

/**
 * Rewrites the state item of `alg` as a deployment before embedded keys wrote it (schema 1, no
 * `keys`), same names and version: the data an upgrade finds.
 */
export async function makeLegacyState(table: TestTable, alg: AsymmetricAlg): Promise<void> {
  const item = await stateItemOf(table, alg);
  if (!item) throw new Error(`no ${alg} state item`);
  const { keys: _embedded, ...old } = item;
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: { ...old, schema_version: 1 } }));
}
