/** The Tickets functions' dependencies (functions/tickets/), built from the runtime once per container. */

import { userManagementScopes } from '../management/held-scopes.ts';
import type { TicketDeps } from '../management/tickets/create-ticket.ts';
import type { Runtime } from '../runtime.ts';
import { ticketsRepository } from '../store/sessions/tickets-repository.ts';
import { usersRepository } from '../store/users/users-repository.ts';
import { perRuntime } from './per-runtime.ts';
import { oauthDeps } from './token-path/token-path-records.ts';

export const ticketDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): TicketDeps => {
  const { db, config, now } = runtime;
  return {
    tickets: ticketsRepository(db, config.tableName, now),
    users: usersRepository(db, config.tableName, now),
    findClient: oauthDeps(runtime).findClient,
    issuer: config.issuer,
    managementScopesOf: (user) => userManagementScopes(user, oauthDeps(runtime)),
  };
});
