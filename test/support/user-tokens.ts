import { randomUUID } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_TENANT_ID } from '../../shared/records/tenant-record.ts';
import type { UserRecord } from '../../shared/records/user-record.ts';
import type { Runtime } from '../../shared/runtime.ts';
import { entity } from '../../shared/store/entity.ts';
import { keys } from '../../shared/store/table-keys.ts';
import { uuidv7 } from '../../shared/store/uuidv7.ts';

/**
 * Users and their tokens for tests of what reads them (/userinfo, introspection, the management
 * API's bearer check), written straight to the table as the Users store lays them out
 * (shared/records/user-record.ts), and access tokens signed with the stage's own keys the way the
 * user-token core mints them (RFC 9068, `sub` = the user, `sid` = the login; plan decisions 1, 2).
 */
export async function putUser(runtime: Runtime, fields: Partial<UserRecord> = {}): Promise<UserRecord> {
  const id = fields.id ?? uuidv7();
  const at = runtime.now().toISOString();
  const user: UserRecord = {
    id,
    tenant_id: DEFAULT_TENANT_ID,
    email_verified: false,
    phone_verified: false,
    user_metadata: {},
    app_metadata: [],
    blocked: false,
    last_login: null,
    logins_count: 0,
    aggregations: { roles: 0, groups: 0, permissions: 0 },
    version: 1,
    created_by: id,
    created_at: at,
    updated_by: id,
    updated_at: at,
    ...fields,
  };
  await runtime.db.send(
    new PutCommand({
      TableName: runtime.config.tableName,
      Item: { ...keys.user(id), ...entity('User'), GSI1PK: keys.collection(user.tenant_id, 'USERS'), GSI1SK: id, ...user },
    }),
  );
  return user;
}

/** Sets attributes of a stored user (block, `tokens_revoked_at`, ...), as the Users API would. */
export async function setUserFields(runtime: Runtime, userId: string, fields: Partial<UserRecord>): Promise<void> {
  const names = Object.keys(fields);
  await runtime.db.send(
    new UpdateCommand({
      TableName: runtime.config.tableName,
      Key: keys.user(userId),
      UpdateExpression: `SET ${names.map((_, i) => `#n${i} = :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#n${i}`, n])),
      ExpressionAttributeValues: Object.fromEntries(names.map((n, i) => [`:v${i}`, fields[n as keyof UserRecord]])),
    }),
  );
}

/** A login's refresh family, revoked or not (plan decision 4: a reused refresh token revokes it). */
export async function putFamily(runtime: Runtime, sid: string, revoked: boolean): Promise<void> {
  await runtime.db.send(
    new PutCommand({ TableName: runtime.config.tableName, Item: { ...keys.refreshFamily(sid), ...entity('RefreshFamily'), revoked } }),
  );
}

export interface UserTokenOptions {
  clientId: string;
  scope: string;
  /** Default `{issuer}/userinfo` (API.md §7.1: a user token without audience). */
  aud?: string;
  /** Default a fresh login id. */
  sid?: string | null;
  iat?: number;
  exp?: number;
  alg?: 'ES256' | 'RS256';
  typ?: string;
  tenantId?: string;
  extra?: Record<string, unknown>;
}

/** An access token for `user`, signed with the stage's keys as the user-token core signs it. */
export async function userToken(runtime: Runtime, user: Pick<UserRecord, 'id' | 'tenant_id'>, o: UserTokenOptions): Promise<string> {
  const iat = o.iat ?? Math.floor(runtime.now().getTime() / 1000);
  const issuer = runtime.config.issuer;
  const sid = o.sid === undefined ? randomUUID() : o.sid;
  return runtime.keys.signJwt(
    o.alg ?? 'ES256',
    { typ: o.typ ?? 'at+jwt' },
    {
      iss: issuer,
      sub: user.id,
      aud: o.aud ?? `${issuer}/userinfo`,
      client_id: o.clientId,
      scope: o.scope,
      iat,
      nbf: iat,
      exp: o.exp ?? iat + 3600,
      jti: randomUUID(),
      tenant_id: o.tenantId ?? user.tenant_id,
      ...(sid === null ? {} : { sid }),
      ...o.extra,
    },
  );
}
