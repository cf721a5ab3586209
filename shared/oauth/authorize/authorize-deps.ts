import { perRuntime } from '../../per-runtime.ts';
import type { ResourceRecord } from '../../records/resource-record.ts';
import type { Runtime } from '../../runtime.ts';
import { resourcesRepository } from '../../store/resources/resources-repository.ts';
import type { AuthorizationCodesRepository } from '../../store/sessions/authorization-codes-repository.ts';
import { type InteractionsRepository, interactionsRepository } from '../../store/sessions/interactions-repository.ts';
import { type SessionsRepository, sessionsRepository } from '../../store/sessions/sessions-repository.ts';
import { type UserGrantsRepository, userGrantsRepository } from '../../store/sessions/user-grants-repository.ts';
import { oauthDeps } from '../../wiring/token-path/token-path-records.ts';
import type { OAuthDeps } from '../oauth-deps.ts';

/** What `/authorize` and `/authorize/resume` use (docs/design.md §3.2: dependencies as arguments). */
export interface AuthorizeDeps {
  oauth: OAuthDeps;
  sessions: Pick<SessionsRepository, 'findSession'>;
  interactions: Pick<InteractionsRepository, 'createInteraction' | 'readInteraction' | 'consumeInteraction'>;
  userGrants: Pick<UserGrantsRepository, 'findUserGrant'>;
  codes: AuthorizationCodesRepository;
  /** A Resource record (its `skip_consent_for_first_party`, docs/contract.md §7.4), by id. */
  getResource(id: string): Promise<ResourceRecord | undefined>;
}

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const authorizeDeps = perRuntime((runtime: Runtime): AuthorizeDeps => {
  const { db, config, now, secretBox } = runtime;
  const table = config.tableName;
  const oauth = oauthDeps(runtime);
  const resources = resourcesRepository(db, table, now, secretBox);
  return {
    oauth,
    sessions: sessionsRepository(db, table, now),
    interactions: interactionsRepository(db, table, now),
    userGrants: userGrantsRepository(db, table, now, oauth.refreshTokens),
    codes: oauth.authorizationCodes,
    getResource: (id) => resources.get(id),
  };
});
