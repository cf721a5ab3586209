import * as v from 'valibot';
import { forbidden, notFound } from '../../../errors.ts';
import type { PasskeyRecord } from '../../../records/passkey-record.ts';
import type { OtpStatus } from '../../../store/users/otp-status.ts';
import { loadVisible, type ManagementAccess } from '../../kit/access.ts';
import { uuid } from '../../kit/fields.ts';
import { assertCurrentPassword } from '../self-password.ts';
import { type OtpBodyInput, userFields } from '../user-body-schemas.ts';
import { loadSelfOrManaged } from '../user-rules.ts';
import type { AuthenticatorDeps } from './authenticator-deps.ts';

/** The TOTP authenticator's id: a user has at most one (docs/management-users.md "Authenticators"). */
export const TOTP_AUTHENTICATOR_ID = 'totp';

const timestamp = v.pipe(v.string(), v.isoTimestamp());
const common = {
  id: v.string(),
  name: v.string(),
  created_at: v.nullable(timestamp),
  /** The last accepted code or passkey sign-in; null: never used. */
  last_used_at: v.nullable(timestamp),
};

/**
 * One authenticator as the management API shows it: what it is and when it was added and last
 * used, never key material, a credential id, a counter or a secret. `disabled` only on `totp`;
 * `synced` (a multi-device credential, WebAuthn §6.1.3) and `backed_up` only on `passkey`.
 */
export const AuthenticatorSchema = v.union([
  v.strictObject({ ...common, id: v.literal(TOTP_AUTHENTICATOR_ID), type: v.literal('totp'), disabled: v.boolean() }),
  v.strictObject({ ...common, id: v.pipe(v.string(), v.uuid()), type: v.literal('passkey'), synced: v.boolean(), backed_up: v.boolean() }),
]);
export type AuthenticatorView = v.InferOutput<typeof AuthenticatorSchema>;

/**
 * GET /users/{user_id}/authenticators: every authenticator at once, oldest first. Not the list
 * grammar of docs/contract.md §3: a user holds at most MAX_PASSKEYS_PER_USER + 1, so there is
 * nothing to page, and `totp` is no UUID (the grammar breaks ties by a UUID id).
 */
export const AuthenticatorListSchema = v.object({ items: v.array(AuthenticatorSchema) });
export type AuthenticatorList = v.InferOutput<typeof AuthenticatorListSchema>;

/** DELETE /users/{user_id}/authenticators/{authenticator_id}: `totp` or a passkey's id (a UUID). */
export const UserAuthenticatorPath = userFields.object({
  user_id: uuid,
  authenticator_id: v.union([v.literal(TOTP_AUTHENTICATOR_ID), uuid], 'must be "totp" or a passkey id (a UUID)'),
});

export const totpView = (otp: OtpStatus): AuthenticatorView => ({
  id: TOTP_AUTHENTICATOR_ID,
  type: 'totp',
  name: 'Authenticator app',
  created_at: otp.created_at,
  last_used_at: otp.last_used_at,
  disabled: otp.disabled,
});

/** A passkey without its credential id, public key, counter, transports or AAGUID. */
export const passkeyView = (p: PasskeyRecord): AuthenticatorView => ({
  id: p.id,
  type: 'passkey',
  name: p.name,
  created_at: p.created_at,
  last_used_at: p.last_used_at ?? null,
  synced: p.device_type === 'multiDevice',
  backed_up: p.backed_up,
});

/**
 * GET /users/{user_id}/authenticators (docs/management-users.md "Authenticators"): with `read:users`, or
 * as the user itself with its own token (the route lets that through, docs/contract.md §7.6). A user of
 * another tenant is 404 like an unknown one. Reading changes nothing, so no password is asked. Two
 * reads of the user's partition (the TOTP item, the passkeys), its secret never opened.
 */
export async function listUserAuthenticators(
  deps: AuthenticatorDeps,
  access: ManagementAccess,
  userId: string,
): Promise<AuthenticatorList> {
  const { ctx } = access;
  const self = ctx.actor.toLowerCase() === userId.toLowerCase();
  if (!self && !ctx.scopes.has('read:users')) throw forbidden('Only the user itself or a holder of read:users may do this.');
  const user = await loadVisible(deps.users, ctx, userId, 'User');
  const [otp, passkeys] = await Promise.all([deps.otpStatus(user.id), deps.passkeys.list(user.id)]);
  const items = [...passkeys.map(passkeyView), ...(otp ? [totpView(otp)] : [])];
  // Oldest first; ties (and an authenticator whose time is unknown, last) by id.
  return { items: items.sort((a, b) => byCreation(a) - byCreation(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) };
}

const byCreation = (a: AuthenticatorView) => (a.created_at === null ? Number.MAX_SAFE_INTEGER : Date.parse(a.created_at));

/**
 * DELETE /users/{user_id}/authenticators/{authenticator_id}: 204; 404 when the user has no such
 * authenticator. The rule of DELETE /users/{user_id}/otp (remove-user-otp.ts): `update:users` under
 * the no-takeover rule, or the user itself with its current password in `body.password`, so a stolen
 * token alone cannot take a factor away. `totp` is the same removal as that route.
 */
export async function removeUserAuthenticator(
  deps: AuthenticatorDeps,
  access: ManagementAccess,
  userId: string,
  authenticatorId: string,
  body: OtpBodyInput,
): Promise<void> {
  const { user, self } = await loadSelfOrManaged(deps, access, userId);
  if (self) await assertCurrentPassword(deps, user, body.password, 'body.password', 'removes its own authenticator');
  const removed =
    authenticatorId === TOTP_AUTHENTICATOR_ID ? await deps.otp.remove(user.id) : await deps.passkeys.remove(user.id, authenticatorId);
  if (!removed) throw notFound('The user has no authenticator with this id.');
}
