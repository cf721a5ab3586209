import type { SecretBox } from '../../keys/key-store.ts';
import type { ConsentsRepository } from '../../store/sessions/consents-repository.ts';
import type { UsersRepository } from '../../store/users/users-repository.ts';

/** What the User Grants use cases depend on, passed as an argument (docs/design.md §3.2). */
export interface ConsentDeps {
  readonly consents: Pick<ConsentsRepository, 'listConsents' | 'deleteConsent'>;
  readonly users: Pick<UsersRepository, 'get'>;
  /** The list cursors' HMAC key (docs/lists.md §5). */
  readonly cursorKey: () => Promise<Buffer>;
  /** The presenter's (a grant carries no secret). */
  readonly secretBox: SecretBox;
}
