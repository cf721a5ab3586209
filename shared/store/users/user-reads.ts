import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { UserRecord } from '../../records/user-record.ts';
import { toRecord } from '../core/entity.ts';
import { getItem } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { userMarker } from './user-markers.ts';
import type { UsersRepository } from './users-repository.ts';

/**
 * A user and the owner of a login, read as the users repository reads them, without its write and
 * delete paths: token exchange's federated-user step needs only these, and the token function
 * loads them in its token-exchange chunk (docs/benchmarks.md "Token function bundle, token exchange").
 */
export function userReads(db: DynamoDBDocumentClient, tableName: string, now: () => Date): Pick<UsersRepository, 'get' | 'findIdByLogin'> {
  return {
    async get(id) {
      const item = await getItem(db, tableName, keys.user(id), now());
      return item ? toRecord<UserRecord>(item) : undefined;
    },
    async findIdByLogin(tenantId, kind, value) {
      const marker = await getItem(db, tableName, userMarker(tenantId, kind, value), now());
      return typeof marker?.target_id === 'string' ? marker.target_id : undefined;
    },
  };
}
