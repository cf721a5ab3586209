import type { Runtime } from '../../runtime.ts';
import { ticketsRepository } from '../../store/sessions/tickets-repository.ts';
import { usersRepository } from '../../store/users/users-repository.ts';
import { oauthDeps } from '../../wiring/token-path/token-path-records.ts';
import { userManagementScopes } from '../held-scopes.ts';
import type { TicketDeps } from './create-ticket.ts';

/** The Tickets use case's dependencies, from the runtime (docs/design.md §3.2). */
export function ticketDeps(runtime: Runtime): TicketDeps {
  const { db, config, now } = runtime;
  return {
    tickets: ticketsRepository(db, config.tableName, now),
    users: usersRepository(db, config.tableName, now),
    findClient: oauthDeps(runtime).findClient,
    issuer: config.issuer,
    managementScopesOf: (user) => userManagementScopes(user, oauthDeps(runtime)),
  };
}
