/**
 * The hosted pages' dependencies (functions/pages/: login, consent, logout, device, ticket), built
 * from the runtime once per container.
 */
import type { BrowserDeps } from '../browser/browser-deps.ts';
import { secureCookies } from '../browser/cookies.ts';
import type { DevicePageDeps } from '../browser/device-page.ts';
import type { TicketPageDeps } from '../browser/ticket-page.ts';
import { hashPassword, verifyPassword } from '../crypto/password-hash.ts';
import { userManagementScopes } from '../management/held-scopes.ts';
import type { Runtime } from '../runtime.ts';
import { clientsRepository } from '../store/clients/clients-repository.ts';
import { resourcesRepository } from '../store/resources/resources-repository.ts';
import { consentsRepository } from '../store/sessions/consents-repository.ts';
import { deviceCodesRepository } from '../store/sessions/device-codes-repository.ts';
import { interactionsRepository } from '../store/sessions/interactions-repository.ts';
import { oneTimeIdsRepository } from '../store/sessions/one-time-ids-repository.ts';
import { refreshTokensRepository } from '../store/sessions/refresh-tokens-repository.ts';
import { sessionsRepository } from '../store/sessions/sessions-repository.ts';
import { ticketsRepository } from '../store/sessions/tickets-repository.ts';
import { userCodeAttemptsRepository } from '../store/sessions/user-code-attempts-repository.ts';
import { loginFailuresRepository } from '../store/users/login-failures-repository.ts';
import { otpRepository } from '../store/users/otp-repository.ts';
import { passkeysRepository } from '../store/users/passkeys-repository.ts';
import { userRehashWrite } from '../store/users/user-login-writes.ts';
import { usersRepository } from '../store/users/users-repository.ts';
import { eventLogOf } from './events.ts';
import { federatedLoginDeps } from './federated-login.ts';
import { perRuntime } from './per-runtime.ts';
import { oauthDeps } from './token-path/token-path-records.ts';
import { forgetUser } from './token-path/user-token-records.ts';

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const browserDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): BrowserDeps => {
  const { db, config, now, secretBox } = runtime;
  const table = config.tableName;
  const clients = clientsRepository(db, table, now, secretBox);
  const resources = resourcesRepository(db, table, now, secretBox);
  const users = usersRepository(db, table, now);
  return {
    sessions: sessionsRepository(db, table, now, config.caps.sessions),
    interactions: interactionsRepository(db, table, now),
    consents: consentsRepository(db, table, now, refreshTokensRepository(db, table, now)),
    // A page's `client_id` (logout's) is whatever the browser sent: a key DynamoDB could not hold
    // is "absent" without a call (read-items.ts `isStorableKey`).
    getClient: (id) => clients.get(id),
    getResource: (id) => resources.get(id),
    getUser: (id) => users.get(id),
    login: oauthDeps(runtime),
    storeRehash: userRehashWrite(db, table),
    passkeys: passkeysRepository(db, table, now),
    passkeyPolicy: config.passkeys.policy,
    oneTimeIds: oneTimeIdsRepository(db, table),
    federation: federatedLoginDeps(runtime),
    keys: runtime.keys,
    csrfKey: () => runtime.serviceSecret('hosted-pages'),
    issuer: config.issuer,
    secureCookies: secureCookies(config.issuer),
    events: eventLogOf(runtime),
    now,
  };
});

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const devicePageDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): DevicePageDeps => {
  const { db, config, now } = runtime;
  return {
    deviceCodes: deviceCodesRepository(db, config.tableName, now),
    attempts: userCodeAttemptsRepository(db, config.tableName, now),
    interactions: interactionsRepository(db, config.tableName, now),
    sessions: sessionsRepository(db, config.tableName, now),
    csrfKey: () => runtime.serviceSecret('hosted-pages'),
    issuer: config.issuer,
    secureCookies: secureCookies(config.issuer),
    events: eventLogOf(runtime),
    now,
  };
});

/** The ticket page (`/tickets/{ticket}`): redeeming a ticket re-checks that it takes over nothing. */
export const ticketPageDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): TicketPageDeps => {
  const { config, db, now, serviceSecret, secretBox } = runtime;
  return {
    tickets: ticketsRepository(db, config.tableName, now),
    users: usersRepository(db, config.tableName, now),
    csrfKey: () => serviceSecret('hosted-pages'),
    hashPassword: (password: string) => hashPassword(password),
    verifyPassword,
    loginFailures: loginFailuresRepository(db, config.tableName, now, config.login),
    otp: otpRepository(db, config.tableName, now, secretBox, { maxFailures: config.login.otpMaxFailures }),
    secretBox,
    issuer: config.issuer,
    managementScopesOf: (user) => userManagementScopes(user, oauthDeps(runtime)),
    forget: (userId: string) => forgetUser(runtime, userId),
    events: eventLogOf(runtime),
    now,
  };
});
