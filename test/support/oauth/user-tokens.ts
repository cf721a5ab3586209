import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { UserRecord } from '#shared/records/user-record.ts';
import type { Runtime } from '#shared/runtime.ts';
import { entity } from '#shared/store/core/entity.ts';
import { keys } from '#shared/store/core/table-keys.ts';

/**
 * User tokens for tests of what reads them (/userinfo, introspection, the management API's bearer
 * check): access tokens signed with the stage's own keys the way the user-token core mints them
 * (RFC 9068, `sub` = the user, `sid` = the login; docs/tokens.md "User tokens"), but with any claim a test
 * needs (an old `iat`, another `typ`, a foreign `aud`). Users themselves: test/support/store/user-items.ts.
 */
/** A login's refresh family, revoked or not (a reused refresh token revokes it). */
export async function putFamily(runtime: Runtime, sid: string, revoked: boolean): Promise<void> {
  await runtime.db.send(
    new PutCommand({ TableName: runtime.config.tableName, Item: { ...keys.refreshFamily(sid), ...entity('RefreshFamily'), revoked } }),
  );
}

export interface UserTokenOptions {
  clientId: string;
  scope: string;
  /** Default `{issuer}/userinfo` (docs/contract.md §7.1: a user token without audience). */
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
