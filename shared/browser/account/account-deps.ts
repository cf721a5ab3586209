import type { PasskeyPolicy } from '../../records/passkey-record.ts';
import type { ConsentsRepository } from '../../store/sessions/consents-repository.ts';
import type { UsersRepository } from '../../store/users/users-repository.ts';
import type { CurrentPasswordDeps } from '../../users/current-password.ts';
import type { BrowserDeps } from '../browser-deps.ts';

/**
 * What the account page (`/account`, docs/passkeys.md "The account page") needs beyond the other
 * hosted pages: the user's grants to list and withdraw, the password change, and whether a
 * tenant named in the URL exists. Built in shared/wiring/account.ts.
 */
export interface AccountDeps extends BrowserDeps, CurrentPasswordDeps {
  grants: Pick<ConsentsRepository, 'listConsents' | 'deleteConsent'>;
  users: Pick<UsersRepository, 'setPasswordHash'>;
  hashPassword: (password: string) => Promise<string>;
  /** Drops the user from the token path's per-container cache after a password change. */
  forget: (userId: string) => void;
  tenantExists: (tenantId: string) => Promise<boolean>;
  /** The stage's passkey policy (docs/passkeys.md "Policy"): `off` offers no "Add a passkey". */
  passkeyPolicy: PasskeyPolicy;
}
