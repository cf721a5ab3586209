import type { SecretBox } from '../../keys/key-store.ts';
import { perRuntime } from '../../per-runtime.ts';
import type { Runtime } from '../../runtime.ts';
import { type UserGrantsRepository, userGrantsRepository } from '../../store/sessions/user-grants-repository.ts';
import { type UsersRepository, usersRepository } from '../../store/users/users-repository.ts';
import { oauthDeps } from '../../wiring/token-path/token-path-records.ts';

/** What the User Grants use cases depend on, passed as an argument (docs/design.md §3.2). */
export interface GrantDeps {
  readonly grants: Pick<UserGrantsRepository, 'listUserGrants' | 'deleteUserGrant'>;
  readonly users: Pick<UsersRepository, 'get'>;
  /** The list cursors' HMAC key (docs/lists.md §5). */
  readonly cursorKey: () => Promise<Buffer>;
  /** The presenter's (a grant carries no secret). */
  readonly secretBox: SecretBox;
}

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const grantDeps = perRuntime((runtime: Runtime): GrantDeps => {
  const { db, config, now, secretBox } = runtime;
  return {
    // The token path's refresh tokens: a family revoked here is inactive in this container at once.
    grants: userGrantsRepository(db, config.tableName, now, oauthDeps(runtime).refreshTokens),
    users: usersRepository(db, config.tableName, now),
    cursorKey: () => runtime.serviceSecret('cursor'),
    secretBox,
  };
});
