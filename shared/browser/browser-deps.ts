import type { KeyStore } from '../keys/key-store.ts';
import type { OAuthDeps } from '../oauth/oauth-deps.ts';
import { perRuntime } from '../per-runtime.ts';
import type { ClientRecord } from '../records/client-record.ts';
import type { ResourceRecord } from '../records/resource-record.ts';
import type { UserRecord } from '../records/user-record.ts';
import type { Runtime } from '../runtime.ts';
import { clientsRepository } from '../store/clients/clients-repository.ts';
import { resourcesRepository } from '../store/resources/resources-repository.ts';
import { type InteractionsRepository, interactionsRepository } from '../store/sessions/interactions-repository.ts';
import { refreshTokensRepository } from '../store/sessions/refresh-tokens-repository.ts';
import { type SessionsRepository, sessionsRepository } from '../store/sessions/sessions-repository.ts';
import { type UserGrantsRepository, userGrantsRepository } from '../store/sessions/user-grants-repository.ts';
import { type UserRehashWrite, userRehashWrite } from '../store/users/user-login-writes.ts';
import { usersRepository } from '../store/users/users-repository.ts';
import { oauthDeps } from '../wiring/token-path/token-path-records.ts';
import { secureCookies } from './cookies.ts';

/** What the hosted login, consent and logout pages depend on, passed as an argument (docs/design.md §3.2). */
export interface BrowserDeps {
  sessions: SessionsRepository;
  interactions: InteractionsRepository;
  userGrants: Pick<UserGrantsRepository, 'findUserGrant' | 'saveUserGrant'>;
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
  /** Public keys, to verify an `id_token_hint` (`/logout`). */
  keys: Pick<KeyStore, 'publicKey'>;
  /** The hosted pages' CSRF key (`serviceSecret('hosted-pages')`). */
  csrfKey: () => Promise<Buffer>;
  issuer: string;
  /** Cookies carry `Secure` (all but a loopback http base URL). */
  secureCookies: boolean;
  now: () => Date;
}

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const browserDeps = perRuntime((runtime: Runtime): BrowserDeps => {
  const { db, config, now, secretBox } = runtime;
  const table = config.tableName;
  const clients = clientsRepository(db, table, now, secretBox);
  const resources = resourcesRepository(db, table, now, secretBox);
  const users = usersRepository(db, table, now);
  return {
    sessions: sessionsRepository(db, table, now, config.caps.sessions),
    interactions: interactionsRepository(db, table, now),
    userGrants: userGrantsRepository(db, table, now, refreshTokensRepository(db, table, now)),
    // A page's `client_id` (logout's) is whatever the browser sent: a key DynamoDB could not hold
    // is "absent" without a call (read-items.ts `isStorableKey`).
    getClient: (id) => clients.get(id),
    getResource: (id) => resources.get(id),
    getUser: (id) => users.get(id),
    login: oauthDeps(runtime),
    storeRehash: userRehashWrite(db, table),
    keys: runtime.keys,
    csrfKey: () => runtime.serviceSecret('hosted-pages'),
    issuer: config.issuer,
    secureCookies: secureCookies(config.issuer),
    now,
  };
});
