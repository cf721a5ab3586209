import type { KeyStore } from '../keys/key-store.ts';
import type { OAuthDeps } from '../oauth/oauth-deps.ts';
import type { EventLog } from '../ports/event-log.ts';
import type { ClientRecord } from '../records/client-record.ts';
import type { PasskeyPolicy } from '../records/passkey-record.ts';
import type { ResourceRecord } from '../records/resource-record.ts';
import type { UserRecord } from '../records/user-record.ts';
import type { ConsentsRepository } from '../store/sessions/consents-repository.ts';
import type { InteractionsRepository } from '../store/sessions/interactions-repository.ts';
import type { OneTimeIds } from '../store/sessions/one-time-ids-repository.ts';
import type { SessionsRepository } from '../store/sessions/sessions-repository.ts';
import type { PasskeysRepository } from '../store/users/passkeys-repository.ts';
import type { UserRehashWrite } from '../store/users/user-login-writes.ts';
import type { FederatedLoginDeps } from './federated-login.ts';

/** What the hosted login, consent and logout pages depend on, passed as an argument (docs/design.md §3.2). */
export interface BrowserDeps {
  sessions: SessionsRepository;
  interactions: InteractionsRepository;
  consents: Pick<ConsentsRepository, 'findConsent' | 'saveConsent'>;
  /** Consistent reads of the records the pages show or check. */
  getClient(id: string): Promise<ClientRecord | undefined>;
  getResource(id: string): Promise<ResourceRecord | undefined>;
  getUser(id: string): Promise<UserRecord | undefined>;
  /** The login of the password grant: lookup by username/email/phone, lockout, TOTP authenticators. */
  login: Pick<OAuthDeps, 'findLogin' | 'login' | 'now' | 'metrics'>;
  /**
   * A due rehash stored at the password step when a code is asked next (login-page.ts). Here, not
   * in `login`: the token path never stores one alone, and its bundle stays without it.
   */
  storeRehash: UserRehashWrite;
  /** The users' passkeys (store/users/passkeys-repository.ts): a passkey sign-in records its login and counter there. */
  passkeys: PasskeysRepository;
  /** The stage's passkey policy on the hosted sign-in (docs/passkeys.md "Policy"). */
  passkeyPolicy: PasskeyPolicy;
  /** Each WebAuthn challenge used once (browser/passkeys/ceremony.ts). */
  oneTimeIds: OneTimeIds;
  /** The tenant's identity providers on the login page and its provider links (federated-login.ts); absent: none offered. */
  federation?: FederatedLoginDeps;
  /** Public keys, to verify an `id_token_hint` (`/logout`). */
  keys: Pick<KeyStore, 'publicKey'>;
  /** The hosted pages' CSRF key (`serviceSecret('hosted-pages')`). */
  csrfKey: () => Promise<Buffer>;
  issuer: string;
  /** Cookies carry `Secure` (all but a loopback http base URL). */
  secureCookies: boolean;
  /** Security events (docs/events.md): folded into the page's own write, or one write of their own. */
  events: EventLog;
  now: () => Date;
}
