import type { UserRecord } from '#shared/records/user-record.ts';
import type { Runtime } from '#shared/runtime.ts';
import { consentsRepository } from '#shared/store/sessions/consents-repository.ts';
import { interactionsRepository } from '#shared/store/sessions/interactions-repository.ts';
import { refreshTokensRepository } from '#shared/store/sessions/refresh-tokens-repository.ts';
import { sessionsRepository } from '#shared/store/sessions/sessions-repository.ts';

/**
 * A "logged-in browser" and a "finished login and consent" without the hosted pages: the session,
 * interaction and User Grant repositories the pages use, called as they call them. Drives
 * `/authorize/resume` and `prompt=none` in tests of the authorization endpoint; the pages
 * themselves are driven in test/pages/.
 */
export interface SeededSession {
  cookie: string;
  /** The `Cookie` header a browser with this session sends. */
  header: string;
  id: string;
  authTime: number;
}

const repos = (runtime: Runtime) => {
  const { db, config, now } = runtime;
  return {
    sessions: sessionsRepository(db, config.tableName, now),
    interactions: interactionsRepository(db, config.tableName, now),
    grants: consentsRepository(db, config.tableName, now, refreshTokensRepository(db, config.tableName, now)),
  };
};

/** A live session of `user`, its login `ageSeconds` ago; `ended`: logged out. */
export async function seedSession(
  runtime: Runtime,
  user: Pick<UserRecord, 'id' | 'tenant_id'>,
  o: { ageSeconds?: number; ended?: boolean } = {},
): Promise<SeededSession> {
  const { sessions } = repos(runtime);
  const authTime = Math.floor(runtime.now().getTime() / 1000) - (o.ageSeconds ?? 0);
  const { value, session } = await sessions.createSession({ userId: user.id, tenantId: user.tenant_id, authTime, amr: ['pwd'] });
  if (o.ended) await sessions.endSession(value);
  return { cookie: value, header: `session=${value}`, id: session.id, authTime };
}

/** What `/login` and `/consent` record on an interaction (`recordLogin`, then `recordDecision`). */
export async function finishInteraction(
  runtime: Runtime,
  interactionId: string,
  session: SeededSession,
  userId: string,
  decision: 'allow' | 'deny',
  grantedScopes?: string[],
): Promise<void> {
  const { interactions } = repos(runtime);
  const logged = await interactions.recordLogin(interactionId, {
    user_id: userId,
    session_id: session.id,
    auth_time: session.authTime,
    amr: ['pwd'],
  });
  if (!logged) throw new Error('no such interaction');
  await interactions.recordDecision(
    interactionId,
    session.id,
    decision === 'allow' ? { decision, granted_scopes: grantedScopes ?? logged.scopes } : { decision },
  );
}

/** The live interaction, as the pages read it. */
export const readInteraction = (runtime: Runtime, id: string) => repos(runtime).interactions.readInteraction(id);

/** A stored User Grant (the consent page's `saveConsent`). */
export const seedConsent = (
  runtime: Runtime,
  user: Pick<UserRecord, 'id' | 'tenant_id'>,
  clientId: string,
  scopes: string[],
  resourceId?: string,
) => repos(runtime).grants.saveConsent({ userId: user.id, tenantId: user.tenant_id, clientId, resourceId: resourceId ?? null, scopes });
