import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_TENANT_ID } from '../../shared/records/tenant-record.ts';
import type { UserRecord } from '../../shared/records/user-record.ts';
import { userMarkerValue } from '../../shared/records/user-record.ts';
import { entity } from '../../shared/store/entity.ts';
import { keys } from '../../shared/store/table-keys.ts';

/**
 * Puts a User item and its login markers straight into the table, as the users store writes them
 * (shared/records/user-record.ts): for the login tests, which need users but not the Users API.
 */
export async function putTestUser(db: DynamoDBDocumentClient, tableName: string, fields: Partial<UserRecord> = {}): Promise<UserRecord> {
  const at = '2026-01-01T00:00:00.000Z';
  const user: UserRecord = {
    id: randomUUID(),
    tenant_id: DEFAULT_TENANT_ID,
    email_verified: false,
    phone_verified: false,
    user_metadata: {},
    app_metadata: [],
    blocked: false,
    last_login: null,
    logins_count: 0,
    aggregations: { roles: 0, groups: 0, permissions: 0 },
    created_at: at,
    updated_at: at,
    version: 1,
    ...fields,
  } as UserRecord;
  const put = (Item: Record<string, unknown>) => db.send(new PutCommand({ TableName: tableName, Item }));
  await put({ ...user, ...keys.user(user.id), ...entity('User'), GSI1PK: keys.collection(user.tenant_id, 'USERS'), GSI1SK: user.id });
  const markers = [
    ['USER_EMAIL', 'email', user.email],
    ['USER_NAME', 'username', user.username],
    ['USER_PHONE', 'phone_number', user.phone_number],
  ] as const;
  for (const [kind, login, value] of markers) {
    if (value !== undefined)
      await put({ ...keys.marker(kind, user.tenant_id, userMarkerValue(login, value)), ...entity('UniqueMarker'), target_id: user.id });
  }
  return user;
}
