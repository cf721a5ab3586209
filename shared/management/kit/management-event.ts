import type { EventActor, EventOrigin, EventType, NewEvent } from '../../records/event-record.ts';
import { newEvent } from '../../records/event-record.ts';
import type { HttpMethod } from '../../routes/route.ts';
import { TOTP_AUTHENTICATOR_ID } from '../users/authenticators/user-authenticators.ts';

/**
 * The event of a management write (docs/events.md "Management writes"): what the route did, to
 * what, by whom, and which top-level body members it was sent. Pure: built from the route's
 * template, its path parameters and the validated body, never from the values the body holds.
 */
export interface ManagementWrite {
  method: HttpMethod;
  /** The route's template, `/identity/v1/users/{user_id}/block`. */
  template: string;
  /** The route's path parameters by name (validated). */
  params: Readonly<Record<string, string | undefined>>;
  /** The validated body, or undefined. */
  body: unknown;
  /**
   * The top-level member names of the body as sent (`sentMembers`), when known: a default the
   * schema filled in, or a member a group's schema drops, is not a field the caller changed.
   */
  sent?: readonly string[] | undefined;
}

/** The management API's base path (shared/routes/management-group.ts). */
const BASE = '/identity/v1';

/** GET and HEAD read; every other method writes. */
export const isWriteMethod = (method: string): boolean =>
  method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';

/** The record type each path segment names, as `target.type`. */
const ENTITY: Readonly<Record<string, string>> = {
  clients: 'client',
  resources: 'resource',
  scopes: 'scope',
  users: 'user',
  roles: 'role',
  groups: 'group',
  tenants: 'tenant',
  'identity-providers': 'identity_provider',
  identities: 'identity',
  authenticators: 'authenticator',
  grants: 'grant',
  tickets: 'ticket',
};

/** Collections below a record whose POST creates a record of their own (the rest add links). */
const NESTED_CREATES: ReadonlySet<string> = new Set(['scopes', 'identity-providers', 'identities']);

const segmentsOf = (template: string): string[] => template.slice(BASE.length).split('/').filter(Boolean);
const paramName = (segment: string): string | undefined => /^\{([a-z_]+)\}$/.exec(segment)?.[1];

/** Does this POST create a record (its id is only known once the write commits)? */
function isCreate(write: Pick<ManagementWrite, 'method' | 'template'>): boolean {
  if (write.method !== 'POST') return false;
  const segments = segmentsOf(write.template);
  const last = segments.at(-1)!;
  return segments.length === 1 || segments[0] === 'tickets' || NESTED_CREATES.has(last);
}

/** Is this a route of one user: `/users/{user_id}` and below? */
const isUserRoute = (template: string): boolean => template.startsWith(`${BASE}/users/{user_id}`);

/**
 * The event type. The routes an account's owner cares about have their own types (the same as
 * the hosted pages' flows record), so a user's history reads alike whoever acted; everything else
 * is `management.created` / `updated` / `deleted`.
 */
export function managementEventType(write: Pick<ManagementWrite, 'method' | 'template' | 'body'>): EventType {
  const { method, template } = write;
  if (isUserRoute(template)) {
    const rest = template.slice(`${BASE}/users/{user_id}`.length);
    const body = (write.body ?? {}) as Record<string, unknown>;
    if (method === 'POST' && rest === '/block') return 'user.blocked';
    if (method === 'POST' && rest === '/unblock') return 'user.unblocked';
    if (method === 'DELETE' && rest === '') return 'user.deleted';
    if (method === 'PUT' && rest === '/password') return 'password.changed';
    if (method === 'POST' && rest === '/otp') return 'authenticator.enrolled';
    if (method === 'DELETE' && (rest === '/otp' || rest === '/authenticators/{authenticator_id}')) return 'authenticator.removed';
    if (method === 'DELETE' && rest === '/grants/{grant_id}') return 'consent.withdrawn';
    if ((method === 'PATCH' || method === 'PUT') && rest === '') {
      if (typeof body.blocked === 'boolean') return body.blocked ? 'user.blocked' : 'user.unblocked';
      if (body.password !== undefined) return 'password.changed';
    }
  }
  if (method === 'DELETE') return 'management.deleted';
  return isCreate(write) ? 'management.created' : 'management.updated';
}

/**
 * What was acted on: the deepest record the path names (`/tenants/{t}/identity-providers/{p}` is
 * the provider), a created record with no id yet (the commit fills it in, pending-event.ts), or
 * the parent whose links a link route changed (`POST /roles/{role_id}/members` is the role).
 */
export function managementTarget(write: Pick<ManagementWrite, 'method' | 'template' | 'params'>): { type: string; id: string } {
  const segments = segmentsOf(write.template);
  if (isCreate(write)) {
    const collection = segments[0] === 'tickets' ? 'tickets' : segments.at(-1)!;
    return { type: ENTITY[collection] ?? collection, id: '' };
  }
  if (segments.at(-1) === 'otp') return { type: 'authenticator', id: TOTP_AUTHENTICATOR_ID };
  for (let i = segments.length - 1; i > 0; i--) {
    const name = paramName(segments[i]!);
    const id = name ? write.params[name] : undefined;
    if (id) return { type: ENTITY[segments[i - 1]!] ?? segments[i - 1]!, id };
  }
  throw new Error(`Route bug: no record named by ${write.method} ${write.template}`);
}

/** The top-level body member names, sorted: which fields a write set, never what to. */
export function changedFields(body: unknown, sent?: readonly string[]): string[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  const names = Object.keys(body);
  return (sent ? names.filter((n) => sent.includes(n)) : names).sort();
}

/** The top-level member names of a JSON object body as sent, or undefined (no body, not an object). */
export function sentMembers(rawBody: string | undefined): string[] | undefined {
  if (!rawBody) return undefined;
  try {
    const parsed: unknown = JSON.parse(rawBody);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.keys(parsed) : undefined;
  } catch {
    return undefined;
  }
}

/** The event of one management write by `actor` in `tenantId`, at `at`. */
export function managementEvent(write: ManagementWrite, actor: EventActor, tenantId: string, at: Date, origin: EventOrigin): NewEvent {
  const userId = isUserRoute(write.template) ? write.params.user_id : undefined;
  return newEvent(managementEventType(write), at, origin, {
    tenant_id: tenantId,
    ...(actor.client_id ? { client_id: actor.client_id } : {}),
    ...(userId ? { user_id: userId } : {}),
    actor,
    target: managementTarget(write),
    changed_fields: changedFields(write.body, write.sent),
    details: { route: `${write.method} ${write.template}` },
  });
}
