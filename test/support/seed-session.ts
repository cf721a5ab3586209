import { createHash, randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UserRecord } from '../../shared/records/user-record.ts';
import type { Runtime } from '../../shared/runtime.ts';
import { uuidv7 } from '../../shared/store/uuidv7.ts';

/**
 * Browser-flow items put straight into the table with the keys and shapes flows-plan.md pins
 * (Session, Interaction, User Grant), so `/authorize` and `/authorize/resume` can be driven
 * without the hosted pages: a "logged-in browser" is a session item plus its cookie, and a
 * "finished login and consent" is the interaction with the fields the pages would record.
 */
const sessionKey = (cookie: string) => ({ PK: `SESSION#${createHash('sha256').update(cookie).digest('base64url')}`, SK: 'SESSION' });
const interactionKey = (id: string) => ({ PK: `INTERACTION#${id}`, SK: 'INTERACTION' });

export interface SeededSession {
  cookie: string;
  /** The `Cookie` header a browser with this session sends. */
  header: string;
  id: string;
  authTime: number;
}

/** A live session of `user` (the login `ageSeconds` ago; 24 h lifetime as pinned). */
export async function seedSession(
  runtime: Runtime,
  user: Pick<UserRecord, 'id' | 'tenant_id'>,
  o: { ageSeconds?: number; ended?: boolean } = {},
) {
  const cookie = randomBytes(32).toString('base64url');
  const now = runtime.now();
  const authTime = Math.floor(now.getTime() / 1000) - (o.ageSeconds ?? 0);
  const expires = new Date(authTime * 1000 + 24 * 3600 * 1000);
  const id = uuidv7();
  await runtime.db.send(
    new PutCommand({
      TableName: runtime.config.tableName,
      Item: {
        ...sessionKey(cookie),
        type: 'Session',
        schema_version: 1,
        id,
        user_id: user.id,
        tenant_id: user.tenant_id,
        auth_time: authTime,
        amr: ['pwd'],
        created_at: new Date(authTime * 1000).toISOString(),
        expires_at: expires.toISOString(),
        ttl: Math.floor(expires.getTime() / 1000),
        ...(o.ended ? { ended_at: now.toISOString() } : {}),
      },
    }),
  );
  return { cookie, header: `session=${cookie}`, id, authTime } satisfies SeededSession;
}

/** What the login and consent pages record on an interaction (`recordLogin` + `recordDecision`). */
export async function finishInteraction(
  runtime: Runtime,
  interactionId: string,
  session: SeededSession,
  userId: string,
  decision: 'allow' | 'deny',
  grantedScopes?: string[],
): Promise<void> {
  await runtime.db.send(
    new UpdateCommand({
      TableName: runtime.config.tableName,
      Key: interactionKey(interactionId),
      UpdateExpression: 'SET user_id = :u, session_id = :s, auth_time = :t, amr = :amr, decision = :d, granted_scopes = :g',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: {
        ':u': userId,
        ':s': session.id,
        ':t': session.authTime,
        ':amr': ['pwd'],
        ':d': decision,
        ':g': grantedScopes ?? (await readInteraction(runtime, interactionId))?.scopes ?? [],
      },
    }),
  );
}

export async function readInteraction(runtime: Runtime, id: string): Promise<Record<string, any> | undefined> {
  const { Item } = await runtime.db.send(
    new GetCommand({ TableName: runtime.config.tableName, Key: interactionKey(id), ConsistentRead: true }),
  );
  return Item;
}

/** A stored User Grant (the consent page's `saveUserGrant`). */
export async function seedUserGrant(
  runtime: Runtime,
  user: Pick<UserRecord, 'id' | 'tenant_id'>,
  clientId: string,
  scopes: string[],
  resourceId?: string,
) {
  const at = runtime.now().toISOString();
  await runtime.db.send(
    new PutCommand({
      TableName: runtime.config.tableName,
      Item: {
        PK: `USER#${user.id}`,
        SK: `GRANT#${clientId}#${resourceId ?? 'userinfo'}`,
        type: 'UserGrant',
        schema_version: 1,
        id: uuidv7(),
        user_id: user.id,
        tenant_id: user.tenant_id,
        client_id: clientId,
        resource_id: resourceId ?? null,
        scopes,
        created_at: at,
        updated_at: at,
      },
    }),
  );
}
