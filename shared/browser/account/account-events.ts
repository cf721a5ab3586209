import type { FoldedEvent } from '../../ports/event-log.ts';
import { type EventType, type NewEvent, newEvent } from '../../records/event-record.ts';
import type { AccountContext } from './account-context.ts';
import type { AccountDeps } from './account-deps.ts';

/**
 * The security event of a change the signed-in person made to their own account (docs/events.md
 * "Catalogue"): about the session's user, acted on by that user (`actor`), `details.via` `account`.
 * Folded for the change's own write, so it lands if and only if the change does. The page is no
 * client's flow: only a withdrawn grant names a client, the grant's.
 */
export function accountEvent(
  ctx: AccountContext,
  deps: Pick<AccountDeps, 'events' | 'now'>,
  type: EventType,
  fields: Pick<NewEvent, 'client_id' | 'target' | 'details'> = {},
): FoldedEvent {
  const { user_id, tenant_id } = ctx.session;
  return deps.events.fold(
    newEvent(type, deps.now(), ctx.origin, {
      tenant_id,
      ...(fields.client_id ? { client_id: fields.client_id } : {}),
      user_id,
      actor: { sub: user_id },
      ...(fields.target ? { target: fields.target } : {}),
      details: { ...fields.details, via: 'account' },
    }),
  );
}
