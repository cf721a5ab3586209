import type { EventLog, FoldedEvent } from '../ports/event-log.ts';
import { type EventOrigin, type EventType, type NewEvent, newEvent } from '../records/event-record.ts';
import type { UserRecord } from '../records/user-record.ts';

/**
 * The security event of a change made through a ticket's link (docs/events.md "Catalogue"): the
 * person who holds the link acts as the user (`actor` the user, `details.via` `ticket`). Folded for
 * the change's own write, so it lands if and only if the change does.
 */
export function ticketEvent(
  user: Pick<UserRecord, 'id' | 'tenant_id'>,
  deps: { events: EventLog; now: () => Date },
  origin: EventOrigin,
  type: EventType,
  fields: Pick<NewEvent, 'target' | 'details'> = {},
): FoldedEvent {
  return deps.events.fold(
    newEvent(type, deps.now(), origin, {
      tenant_id: user.tenant_id,
      user_id: user.id,
      actor: { sub: user.id },
      ...(fields.target ? { target: fields.target } : {}),
      details: { ...fields.details, via: 'ticket' },
    }),
  );
}
