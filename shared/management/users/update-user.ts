import type { RecordParams } from '../../lists/index.ts';
import type { UserPatch } from '../../records/user-record.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { assertMergedJsonFits } from '../kit/fields.ts';
import { presentRecord } from '../kit/present-record.ts';
import { assertMayActAs } from '../no-escalation.ts';
import { type UpdateUserInput, USER_LIMITS } from './user-body-schemas.ts';
import type { UserDeps } from './user-deps.ts';
import { userEntity } from './user-entity.ts';
import { assertHasLogin } from './user-rules.ts';

const LOGIN_FIELDS = ['email', 'username', 'phone_number'] as const;

/**
 * PATCH (and PUT) /users/{user_id} (docs/contract.md §6): merges the body into the record (objects merge,
 * arrays replace, `null` removes an optional field) under the repository's version lock, moving
 * the uniqueness markers in the same transaction (409 naming the field if a new value is taken).
 * The merged record must keep a login identifier (400), checked on every attempt of the merge.
 */
export async function updateUser(
  deps: UserDeps,
  access: ManagementAccess,
  userId: string,
  body: UpdateUserInput,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  const current = await loadVisible(deps.users, access.ctx, userId, 'User');
  // A new email, username or phone number is a way into the account (a reset mail, a login).
  if (LOGIN_FIELDS.some((f) => body[f] !== undefined)) await assertMayActAs(access.ctx, current.id, () => deps.managementScopesOf(current));
  const { password: _never, tenant_id: _alsoNever, ...patch } = body;
  const updated = await deps.users.update(userId, patch as UserPatch, access.ctx.actor, {
    validate: (_current, next) => {
      assertHasLogin(next);
      // user_metadata merges key by key (RFC 7396): the merged object keeps the body's bound.
      assertMergedJsonFits(next.user_metadata, USER_LIMITS.userMetadataBytes, 'body.user_metadata');
    },
  });
  deps.forget(userId);
  return presentRecord(userEntity, deps, access, updated, params);
}
