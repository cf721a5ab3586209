import type { SecretBox } from '../../keys/key-store.ts';
import type { IdentityProviderReads } from '../../store/federation/identity-providers-repository.ts';
import type { UserIdentitiesRepository } from '../../store/users/user-identities-repository.ts';
import type { UsersRepository } from '../../store/users/users-repository.ts';

/** What the User Identities use cases and a user's `expand=all` depend on, passed as an argument (docs/design.md §3.2). */
export interface UserIdentityDeps {
  readonly users: Pick<UsersRepository, 'get'>;
  readonly identities: Pick<UserIdentitiesRepository, 'list' | 'link' | 'unlink'>;
  /** The provider must be one of the user's tenant (`byId` names the tenant: another tenant's is absent). */
  readonly providers: Pick<IdentityProviderReads, 'byId'>;
  /** The list cursors' HMAC key (docs/lists.md §5). */
  readonly cursorKey: () => Promise<Buffer>;
  /** The presenter's (an identity carries no secret). */
  readonly secretBox: SecretBox;
}
